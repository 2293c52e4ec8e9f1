//! Each account's share of a process's webhook deliveries in flight.
//! An endpoint that hangs holds its places until the delivery times out,
//! so however many accounts' endpoints hang at once, a healthy account
//! with nothing in flight must still find a place: the last
//! [`KEPT_FOR_QUIET`] places go only to an account's first delivery in
//! flight, and never to a troubled account's (one whose endpoint failed
//! lately, or has kept a delivery waiting longer than [`SLOW_SECS`]). A
//! quiet, healthy account is then delivered at once while fewer than
//! [`KEPT_FOR_QUIET`] accounts that were healthy when their deliveries
//! began are in flight, however many troubled ones are (see the property
//! test). Accounts not yet seen to be troubled (a first wave of dead
//! endpoints) may hold every place until their deliveries time out.

/// One account's deliveries in flight at once, per process.
pub const PER_ACCOUNT: u32 = 8;
/// Deliveries in flight at once, per process.
pub const IN_FLIGHT: u32 = 64;
/// The places only a healthy account's first delivery in flight may take.
pub const KEPT_FOR_QUIET: u32 = 16;
/// How long a delivery may wait for its endpoint before its account
/// counts as troubled.
pub const SLOW_SECS: u64 = 2;
/// How long a failed delivery leaves its account troubled, unless one
/// succeeds first.
pub const TROUBLED_SECS: u64 = 60;

/// Whether an account with `mine` deliveries in flight, `troubled` or
/// not, may start one more while the process has `total` in flight.
pub fn admits(mine: u32, total: u32, troubled: bool) -> bool {
    match (mine, troubled) {
        (0, false) => total < IN_FLIGHT,
        _ => mine < PER_ACCOUNT && total < IN_FLIGHT - KEPT_FOR_QUIET,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_busy_account_stops_at_its_share_or_where_the_kept_places_begin() {
        assert!(admits(0, 0, false) && admits(7, 0, false));
        assert!(!admits(8, 0, false), "its own share");
        assert!(!admits(1, IN_FLIGHT - KEPT_FOR_QUIET, false), "the kept places");
        assert!(admits(0, IN_FLIGHT - 1, false), "a quiet account takes a kept place");
        assert!(!admits(0, IN_FLIGHT, false));
        assert!(admits(0, 0, true), "a troubled account delivers while there is room");
        assert!(
            !admits(0, IN_FLIGHT - KEPT_FOR_QUIET, true),
            "but never in the kept places"
        );
    }

    proptest! {
        /// Starts and ends of deliveries by any of 90 accounts, any of
        /// them turning troubled or well at any time, in any order: each
        /// stays within its share, the process within its places, and a
        /// quiet healthy account is let in while fewer than KEPT_FOR_QUIET
        /// accounts in flight started healthy, however many troubled
        /// ones are in flight.
        #[test]
        fn a_quiet_healthy_account_finds_a_place_however_many_troubled_ones_are_in_flight(
            steps in proptest::collection::vec((0usize..90, any::<bool>(), any::<bool>()), 0..900)
        ) {
            let mut mine = [0u32; 90];
            let mut troubled = [false; 90];
            let mut started_healthy = [false; 90];
            for (account, start, trouble) in steps {
                let total: u32 = mine.iter().sum();
                if start && admits(mine[account], total, troubled[account]) {
                    if mine[account] == 0 {
                        started_healthy[account] = !troubled[account];
                    }
                    mine[account] += 1;
                } else if !start && mine[account] > 0 {
                    mine[account] -= 1;
                }
                troubled[account] = trouble;
                let total: u32 = mine.iter().sum();
                let healthy = (0..90).filter(|a| mine[*a] > 0 && started_healthy[*a]).count() as u32;
                prop_assert!(total <= IN_FLIGHT);
                prop_assert!(mine.iter().all(|m| *m <= PER_ACCOUNT));
                if healthy < KEPT_FOR_QUIET {
                    prop_assert!(admits(0, total, false), "{healthy} started healthy, {total} places held");
                }
            }
        }
    }
}
