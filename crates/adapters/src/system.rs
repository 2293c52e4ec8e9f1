//! The real clock and randomness.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use domain::{Secret, Timestamp};
use ports::clock::Clock;
use ports::ids::Ids;
use rand::Rng;
use rand::distributions::Alphanumeric;
use rand::rngs::OsRng;

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let since_epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp::from_unix(i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX))
    }
}

pub struct RandomIds;

impl Ids for RandomIds {
    fn unique(&self) -> String {
        uuid::Uuid::now_v7().simple().to_string()
    }

    fn fraction(&self) -> f64 {
        OsRng.r#gen::<f64>()
    }

    fn secret(&self, len: usize) -> Secret<String> {
        Secret::new(OsRng.sample_iter(&Alphanumeric).take(len).map(char::from).collect())
    }

    fn webhook_secret(&self) -> Secret<String> {
        let bytes: [u8; 32] = OsRng.r#gen();
        Secret::new(format!("whsec_{}", BASE64.encode(bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_alphanumeric_of_the_asked_length_and_differ() {
        let a = RandomIds.secret(40);
        let b = RandomIds.secret(40);
        assert_eq!(a.expose().len(), 40);
        assert!(a.expose().bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a.expose(), b.expose());
        let (first, second) = (RandomIds.unique(), RandomIds.unique());
        assert!(first < second, "ids are time-ordered: {first} {second}");
        assert!((0.0..1.0).contains(&RandomIds.fraction()));
        let (c, d) = (RandomIds.webhook_secret(), RandomIds.webhook_secret());
        let key = c.expose().strip_prefix("whsec_").map(|k| BASE64.decode(k).unwrap());
        assert_eq!(key.map(|k| k.len()), Some(32), "{}", c.expose().len());
        assert_ne!(c.expose(), d.expose());
    }
}
