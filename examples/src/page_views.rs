//! Windowed page views: views per page in tumbling one-minute windows and in hopping
//! one-minute windows that advance every 30 seconds, each with 10 seconds of grace.
//!
//! A record belongs to the windows `[start, start + size)` that contain its timestamp. A window
//! closes once the task's stream time (the largest timestamp seen) passes its end plus the
//! grace period; a record for a closed window is dropped and counted
//! (`Task::late_records_dropped`).

use dekaf_streams::prelude::*;

topology! {
    /// Counts page views per page and window. Input: key = user, value = page.
    pub PageViews = "page-views" {
        let views = stream("page-views", Utf8, Utf8);
        views
            .group_by(|_user, page| page.clone(), Utf8, Utf8)
            .windowed_by(tumbling(Duration::from_secs(60)).grace(Duration::from_secs(10)))
            .count("views-per-minute")
            .to_stream()
            .to("page-views-per-minute", TimeWindowed::<Utf8>, I64);
        views
            .group_by(|_user, page| page.clone(), Utf8, Utf8)
            .windowed_by(hopping(Duration::from_secs(60), Duration::from_secs(30)).grace(Duration::from_secs(10)))
            .count("views-hopping")
            .to_stream()
            .to("page-views-hopping", TimeWindowed::<Utf8>, I64);
    }
}
