//! Setting a streams group's dynamic configuration (IncrementalAlterConfigs on the GROUP
//! resource), such as `streams.num.standby.replicas`.
//!
//! Kafka 4.4 keeps per-group overrides of the broker's `group.streams.*` defaults as configs of
//! a resource of type GROUP (`GroupConfig.java` in the group-coordinator module: among others
//! `streams.num.standby.replicas`, at most `group.streams.max.standby.replicas` = 2, and
//! `streams.session.timeout.ms`, `streams.heartbeat.interval.ms`). They can be set before the
//! group exists and apply at its next target assignment. Kafka's own tool does the same:
//! `kafka-configs.sh --alter --entity-type groups --entity-name <application id>
//! --add-config streams.num.standby.replicas=1`.

use kafka_protocol::messages::IncrementalAlterConfigsRequest;
use kafka_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig,
};
use kafka_protocol::protocol::StrBytes;

use super::connection::{BrokerConnection, error_name};
use super::coordinator::CoordinatorConfig;
use super::error::GroupError;
use crate::protocol::responses::IncrementalAlterConfigsResponse;

/// The API key of IncrementalAlterConfigs.
const API_KEY: i16 = 44;
/// Versions spoken here (v1 is flexible; every 4.x broker serves 0–1).
const VERSIONS: (i16, i16) = (0, 1);
/// ConfigResource type GROUP (KIP-848).
const RESOURCE_GROUP: i8 = 32;
/// AlterConfigOp SET.
const OP_SET: i8 = 0;
/// AlterConfigOp DELETE (back to the broker's default).
const OP_DELETE: i8 = 1;

/// The group config holding how many standby replicas the coordinator assigns per stateful task.
pub const STANDBY_REPLICAS_CONFIG: &str = "streams.num.standby.replicas";

/// Sets (`Some`) or removes (`None`, back to the broker's `group.streams.*` default) dynamic
/// configs of the group `group_id`, through any bootstrap broker.
///
/// Fails with the broker's error (for example INVALID_CONFIG when a value is out of range:
/// `streams.num.standby.replicas` may not exceed the broker's
/// `group.streams.max.standby.replicas`, 2 by default).
pub async fn alter_group_configs(
    config: &CoordinatorConfig,
    group_id: &str,
    configs: &[(&str, Option<&str>)],
) -> Result<(), GroupError> {
    let mut last = None;
    for addr in &config.bootstrap {
        let conn = BrokerConnection::connect(
            addr,
            &config.client_id,
            config.request_timeout,
            &config.security,
        )
        .await;
        match conn {
            Ok(mut conn) => return alter_on(&mut conn, group_id, configs).await,
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| GroupError::NoBroker {
        bootstrap: String::new(),
        waited: std::time::Duration::ZERO,
        last_error: "no bootstrap servers given".into(),
    }))
}

/// Sets the group's `streams.num.standby.replicas` (see [`alter_group_configs`]).
pub async fn set_standby_replicas(
    config: &CoordinatorConfig,
    group_id: &str,
    replicas: u32,
) -> Result<(), GroupError> {
    let value = replicas.to_string();
    alter_group_configs(
        config,
        group_id,
        &[(STANDBY_REPLICAS_CONFIG, Some(value.as_str()))],
    )
    .await
}

async fn alter_on(
    conn: &mut BrokerConnection,
    group_id: &str,
    configs: &[(&str, Option<&str>)],
) -> Result<(), GroupError> {
    let rejected = |code: String, message: String| GroupError::Rejected {
        api: "IncrementalAlterConfigs",
        group: group_id.to_owned(),
        code,
        message,
    };
    let version = conn.pick_version(API_KEY, VERSIONS).ok_or_else(|| {
        rejected(
            "UNSUPPORTED_VERSION".into(),
            format!(
                "the broker at {} serves no IncrementalAlterConfigs version this client speaks",
                conn.addr()
            ),
        )
    })?;
    let resource = AlterConfigsResource::default()
        .with_resource_type(RESOURCE_GROUP)
        .with_resource_name(StrBytes::from_string(group_id.to_owned()))
        .with_configs(
            configs
                .iter()
                .map(|(name, value)| {
                    AlterableConfig::default()
                        .with_name(StrBytes::from_string((*name).to_owned()))
                        .with_config_operation(if value.is_some() { OP_SET } else { OP_DELETE })
                        .with_value(value.map(|v| StrBytes::from_string(v.to_owned())))
                })
                .collect(),
        );
    let request = IncrementalAlterConfigsRequest::default().with_resources(vec![resource]);
    let response: IncrementalAlterConfigsResponse = conn
        .send(API_KEY, version, &request, "IncrementalAlterConfigs")
        .await?;
    for r in response.responses {
        if r.error_code != 0 {
            return Err(rejected(
                error_name(r.error_code),
                r.error_message.unwrap_or_default(),
            ));
        }
    }
    Ok(())
}
