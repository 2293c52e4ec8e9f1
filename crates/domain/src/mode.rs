//! Sandbox (test) and production (live): the key decides, and every row
//! carries the mode it belongs to.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Test,
    Live,
}

impl Mode {
    pub const BOTH: [Mode; 2] = [Mode::Test, Mode::Live];

    pub fn is_live(self) -> bool {
        self == Mode::Live
    }

    pub fn from_live(livemode: bool) -> Self {
        if livemode { Mode::Live } else { Mode::Test }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Test => "test",
            Mode::Live => "live",
        }
    }
}
