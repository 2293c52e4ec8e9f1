//! Each account's share of a process's webhook deliveries in flight.
//! An endpoint that hangs holds its places until the delivery times out,
//! so however many accounts' endpoints hang at once, an account with
//! nothing in flight must still find a place: the last
//! [`KEPT_FOR_QUIET`] places go only to an account's first delivery in
//! flight. A quiet account is then delivered at once while fewer than
//! [`KEPT_FOR_QUIET`] accounts have deliveries in flight (see the
//! property test).

/// One account's deliveries in flight at once, per process.
pub const PER_ACCOUNT: u32 = 8;
/// Deliveries in flight at once, per process.
pub const IN_FLIGHT: u32 = 64;
/// The places only an account's first delivery in flight may take.
pub const KEPT_FOR_QUIET: u32 = 16;

/// Whether an account with `mine` deliveries in flight may start one more
/// while the process has `total` in flight.
pub fn admits(mine: u32, total: u32) -> bool {
    match mine {
        0 => total < IN_FLIGHT,
        _ => mine < PER_ACCOUNT && total < IN_FLIGHT - KEPT_FOR_QUIET,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_busy_account_stops_at_its_share_or_where_the_kept_places_begin() {
        assert!(admits(0, 0) && admits(7, 0));
        assert!(!admits(8, 0), "its own share");
        assert!(!admits(1, IN_FLIGHT - KEPT_FOR_QUIET), "the kept places");
        assert!(admits(0, IN_FLIGHT - 1), "a quiet account takes a kept place");
        assert!(!admits(0, IN_FLIGHT));
    }

    proptest! {
        /// Starts and ends of deliveries by any of `accounts` accounts, in
        /// any order: each stays within its share, the process within its
        /// places, and while fewer than KEPT_FOR_QUIET accounts are in
        /// flight, one more account is always let in.
        #[test]
        fn a_quiet_account_always_finds_a_place_while_few_accounts_are_in_flight(
            steps in proptest::collection::vec((0usize..30, any::<bool>()), 0..600)
        ) {
            let mut mine = [0u32; 30];
            for (account, start) in steps {
                let total: u32 = mine.iter().sum();
                if start && admits(mine[account], total) {
                    mine[account] += 1;
                } else if !start && mine[account] > 0 {
                    mine[account] -= 1;
                }
                let total: u32 = mine.iter().sum();
                let busy = mine.iter().filter(|m| **m > 0).count() as u32;
                prop_assert!(total <= IN_FLIGHT);
                prop_assert!(mine.iter().all(|m| *m <= PER_ACCOUNT));
                if busy < KEPT_FOR_QUIET {
                    prop_assert!(admits(0, total), "{busy} accounts in flight hold {total} places");
                }
            }
        }
    }
}
