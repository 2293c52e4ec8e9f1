use crate::InvalidInput;

/// The countries whose residents can be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Country {
    Nigeria,
    Ghana,
    Uganda,
    Kenya,
}

impl Country {
    pub const ALL: [Country; 4] = [Country::Nigeria, Country::Ghana, Country::Uganda, Country::Kenya];

    pub fn name(self) -> &'static str {
        match self {
            Country::Nigeria => "Nigeria",
            Country::Ghana => "Ghana",
            Country::Uganda => "Uganda",
            Country::Kenya => "Kenya",
        }
    }

    /// ISO 3166-1 alpha-2.
    pub fn iso(self) -> &'static str {
        match self {
            Country::Nigeria => "NG",
            Country::Ghana => "GH",
            Country::Uganda => "UG",
            Country::Kenya => "KE",
        }
    }

    /// Accepts the name or the ISO code, in any case.
    pub fn parse(field: &str, value: &str) -> Result<Country, InvalidInput> {
        let value = value.trim();
        Country::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(value) || c.iso().eq_ignore_ascii_case(value))
            .ok_or_else(|| InvalidInput::new(field, "must be one of Nigeria, Ghana, Uganda, Kenya"))
    }

    /// Checks a postal code against the country's format: Nigeria 6 digits
    /// (NIPOST), Kenya 5 digits, Ghana a GhanaPost GPS digital address
    /// (e.g. `GA-183-8164`), Uganda none in use (empty, or up to 6 digits).
    pub fn check_postal_code(self, field: &str, value: &str) -> Result<(), InvalidInput> {
        let digits = |n: usize| value.len() == n && value.bytes().all(|b| b.is_ascii_digit());
        let ok = match self {
            Country::Nigeria => digits(6),
            Country::Kenya => digits(5),
            Country::Ghana => ghana_post_gps(value),
            Country::Uganda => value.len() <= 6 && value.bytes().all(|b| b.is_ascii_digit()),
        };
        let rule = match self {
            Country::Nigeria => "must be a 6-digit Nigerian postal code",
            Country::Kenya => "must be a 5-digit Kenyan postal code",
            Country::Ghana => "must be a GhanaPost GPS address such as GA-183-8164",
            Country::Uganda => "must be empty or up to 6 digits",
        };
        if ok {
            Ok(())
        } else {
            Err(InvalidInput::new(field, rule))
        }
    }
}

fn ghana_post_gps(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    let digits = |s: &str, lo: usize, hi: usize| (lo..=hi).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    matches!(parts.as_slice(), [region, area, place]
        if region.len() == 2 && region.bytes().all(|b| b.is_ascii_uppercase()) && digits(area, 1, 4) && digits(place, 4, 4))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_codes() {
        assert_eq!(Country::parse("country", "nigeria"), Ok(Country::Nigeria));
        assert_eq!(Country::parse("country", "KE"), Ok(Country::Kenya));
        let e = Country::parse("address.country", "Togo").unwrap_err();
        assert_eq!(e.field, "address.country");
    }

    #[test]
    fn postal_codes_follow_each_country() {
        assert!(Country::Nigeria.check_postal_code("p", "100001").is_ok());
        assert!(Country::Nigeria.check_postal_code("p", "10001").is_err());
        assert!(Country::Kenya.check_postal_code("p", "00100").is_ok());
        assert!(Country::Kenya.check_postal_code("p", "001000").is_err());
        assert!(Country::Ghana.check_postal_code("p", "GA-183-8164").is_ok());
        assert!(Country::Ghana.check_postal_code("p", "00233").is_err());
        assert!(Country::Uganda.check_postal_code("p", "").is_ok());
        assert!(Country::Uganda.check_postal_code("p", "KLA").is_err());
    }
}
