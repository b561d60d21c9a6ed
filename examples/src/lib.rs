//! Example topologies of dekaf-streams, each tested through the TestDriver.
