//! Absolute http(s) URLs: webhook endpoints, ID and selfie images.

use crate::InvalidInput;

/// Checks that `value` is an absolute `http` or `https` URL with a host,
/// and returns it as given.
pub fn parse(field: &str, value: &str) -> Result<String, InvalidInput> {
    let rule = "must be an absolute http:// or https:// URL with a host";
    let url = url::Url::parse(value).map_err(|_| InvalidInput::new(field, rule))?;
    let web = matches!(url.scheme(), "http" | "https");
    if !web || url.host_str().is_none_or(str::is_empty) {
        return Err(InvalidInput::new(field, rule));
    }
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ] {
            let e = parse("url", bad).unwrap_err();
            assert_eq!(e.field, "url", "{bad}");
        }
    }
}
