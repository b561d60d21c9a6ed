//! JSON through `serde_json`.

use std::marker::PhantomData;

use super::{Encoded, Serde, SerdeError, present};

/// JSON through `serde_json`, for any `T: Serialize + DeserializeOwned`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(PhantomData<fn() -> T>);

impl<T> Serde for Json<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned + 'static,
{
    type Value = T;
    #[inline]
    fn serialize(value: &T, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        serde_json::to_writer(&mut *out, value)?;
        Ok(Encoded::Present)
    }
    #[inline]
    fn deserialize(bytes: Option<&[u8]>) -> Result<T, SerdeError> {
        Ok(serde_json::from_slice(present(bytes)?)?)
    }
}
