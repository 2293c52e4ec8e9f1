//! Absolute http(s) URLs: webhook endpoints, ID and selfie images; and
//! which addresses a webhook may reach.

use crate::{InvalidInput, Mode};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The longest URL kept.
const MAX_URL_LEN: usize = 2048;

/// Checks that `value` is an absolute `http` or `https` URL with a host,
/// of at most 2,048 characters and none of them a control, invisible or
/// bidirectional character (the URL parser would take some of them, and
/// the URL is kept and shown as given), and returns it as given.
pub fn parse(field: &str, value: &str) -> Result<String, InvalidInput> {
    crate::text::plain(field, value, MAX_URL_LEN)?;
    let rule = "must be an absolute http:// or https:// URL with a host";
    let url = url::Url::parse(value).map_err(|_| InvalidInput::new(field, rule))?;
    let web = matches!(url.scheme(), "http" | "https");
    if !web || url.host_str().is_none_or(str::is_empty) {
        return Err(InvalidInput::new(field, rule));
    }
    Ok(value.to_string())
}

/// Checks a webhook endpoint for `mode`: an absolute http(s) URL, https
/// in live mode, whose host is not a non-public address (an IP literal or
/// `localhost`; names are also checked where they resolve, at connect
/// time). `allow_private` (local development and tests) lifts both rules.
pub fn webhook_url(field: &str, value: &str, mode: Mode, allow_private: bool) -> Result<String, InvalidInput> {
    let value = parse(field, value)?;
    if allow_private {
        return Ok(value);
    }
    let url = url::Url::parse(&value).map_err(|_| InvalidInput::new(field, "must be an absolute URL"))?;
    if mode.is_live() && url.scheme() != "https" {
        return Err(InvalidInput::new(field, "must be an https:// URL in live mode"));
    }
    let private = match url.host() {
        Some(url::Host::Ipv4(ip)) => !is_public(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => !is_public(IpAddr::V6(ip)),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => true,
    };
    if private {
        return Err(InvalidInput::new(
            field,
            "must not point at a loopback, private, link-local or other non-public address",
        ));
    }
    Ok(value)
}

/// Whether `ip` is a public unicast address a webhook may reach: not
/// loopback, private, shared (CGNAT), link-local, multicast, broadcast,
/// unspecified, documentation, benchmarking or reserved, in IPv4 or IPv6
/// (IPv4-mapped, -compatible and NAT64 addresses are judged by the IPv4
/// address they carry). Written here because std's `is_global` is not
/// stable; the ranges are IANA's special-purpose registries.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => is_public_v6(ip),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let special = a == 0 // "this network"
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 169 && b == 254) // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 192 && b == 168)
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation
        || (a == 203 && b == 0 && c == 113) // documentation
        || a >= 224; // multicast, reserved, broadcast
    !special
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_v4(ip) {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    let special = ip.is_unspecified()
        || ip.is_loopback()
        || (s[0] & 0xfe00) == 0xfc00 // unique local
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (s[0] & 0xff00) == 0xff00 // multicast
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]) // discard-only
        || (s[0] == 0x2001 && s[1] < 0x0200) // IETF protocol assignments (Teredo, ORCHID, ...)
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x3fff && s[1] < 0x1000) // documentation (3fff::/20)
        || s[0] == 0x2002 // 6to4: carries an IPv4 address of any kind
        || (s[0] & 0xe000) != 0x2000; // outside global unicast 2000::/3
    !special
}

/// The IPv4 address an IPv6 one stands for: IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-compatible (`::a.b.c.d`) or NAT64 (`64:ff9b::a.b.c.d`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    let mapped = s[..5] == [0; 5] && (s[5] == 0xffff || (s[5] == 0 && !(s[6] == 0 && s[7] <= 1)));
    let nat64 = s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0; 4];
    (mapped || nat64).then_some(low)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn non_public_addresses_are_not_public() {
        for ip in [
            "0.0.0.0",
            "10.1.2.3",
            "100.64.0.1",
            "127.0.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::10.0.0.1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "3fff::1",
            "3fff:fff::1",
            "2002:7f00:1::",
            "100::1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.0.1",
            "172.32.0.1",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
        ] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn webhook_urls_are_https_in_live_mode_and_never_point_inside() {
        let ok = |url: &str, mode| webhook_url("url", url, mode, false).is_ok();
        assert!(ok("https://hooks.example.com/x", Mode::Live));
        assert!(ok("http://hooks.example.com/x", Mode::Test));
        assert!(!ok("http://hooks.example.com/x", Mode::Live));
        for inside in [
            "http://169.254.169.254/latest/meta-data",
            "https://127.0.0.1:5432",
            "https://[::1]/x",
            "https://[::ffff:a9fe:a9fe]/x",
            "https://10.0.0.1/x",
            "https://localhost/x",
            "https://api.LOCALHOST./x",
            "https://2130706433/x",
            "https://0x7f.1/x",
        ] {
            for mode in [Mode::Test, Mode::Live] {
                let e = webhook_url("url", inside, mode, false).unwrap_err();
                assert_eq!(e.field, "url", "{inside}");
                assert!(
                    webhook_url("url", inside, mode, true).is_ok(),
                    "{inside}: allowed with the flag"
                );
            }
        }
    }

    proptest! {
        /// Every IPv4 address is judged the same bare or IPv4-mapped.
        #[test]
        fn mapped_addresses_are_judged_by_their_ipv4(bits in any::<u32>()) {
            let v4 = Ipv4Addr::from(bits);
            prop_assert_eq!(is_public(IpAddr::V4(v4)), is_public(IpAddr::V6(v4.to_ipv6_mapped())));
        }
    }

    #[test]
    fn accepts_web_urls() {
        for ok in ["https://example.com/hooks", "http://127.0.0.1:9000/x?y=1"] {
            assert_eq!(parse("url", ok).unwrap(), ok);
        }
    }

    #[test]
    fn rejects_others_naming_the_field() {
        for bad in [
            "",
            "example.com",
            "ftp://example.com",
            "mailto:a@b.c",
            "https://",
            "not a url",
            // Kept and shown as given: nothing the parser would let by.
            "https://bolt.eu/\0x",
            "https://bolt.eu/\u{1b}[31m",
            "https://bolt.eu/\u{202e}txt",
            "https://bolt.eu/a\u{2028}b",
            &format!("https://bolt.eu/{}", "x".repeat(2_040)),
        ] {
            let e = parse("url", bad).unwrap_err();
            assert_eq!(e.field, "url", "{bad}");
        }
    }
}
