//! Why a console request is not answered with its page: what the session,
//! the forms and the use cases refuse, each with its status. How a
//! problem is shown is the page shell's (`view`).

use actix_web::http::StatusCode;
use domain::console::Refusal;
use domain::{DomainError, ErrorKind};
use std::fmt;

/// Why a console request is not answered with its page.
#[derive(Debug)]
pub enum Problem {
    /// No live session: to the sign-in page.
    SignIn,
    Forbidden,
    /// The operator's change without a second factor set up.
    SecondFactor,
    NotFound,
    /// A form without its session's CSRF token, or from another origin.
    Csrf,
    BadForm,
    /// A rule the request broke, said as the API says it.
    Refused {
        status: StatusCode,
        message: String,
    },
    Unavailable,
}

impl Problem {
    pub fn bad_query(e: impl fmt::Display) -> Problem {
        Problem::Refused {
            status: StatusCode::BAD_REQUEST,
            message: format!("the page's query could not be read: {e}"),
        }
    }

    /// A use case's error, as its kind says.
    pub fn of(e: &(impl DomainError + fmt::Display)) -> Problem {
        let status = match e.kind() {
            _ if e.code().ends_with("not_found") => return Problem::NotFound,
            ErrorKind::NotFound => return Problem::NotFound,
            ErrorKind::Forbidden => return Problem::Forbidden,
            ErrorKind::Unavailable | ErrorKind::Overloaded | ErrorKind::RetryLater | ErrorKind::Internal => {
                tracing::error!(error = %e, "a console request failed");
                return Problem::Unavailable;
            }
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            _ => StatusCode::BAD_REQUEST,
        };
        Problem::Refused {
            status,
            message: e.to_string(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Problem::SignIn => "Please sign in.",
            Problem::Forbidden => "Your role cannot do this.",
            Problem::SecondFactor => "Set up two-step sign-in (Security) before changing anything as the operator.",
            Problem::NotFound => "There is nothing here.",
            Problem::Csrf => "This form has expired or did not come from this console. Reload the page and try again.",
            Problem::BadForm => "The form could not be read.",
            Problem::Refused { message, .. } => message,
            Problem::Unavailable => "Something went wrong on our side. Please try again in a moment.",
        })
    }
}

impl From<Refusal> for Problem {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::Forbidden => Problem::Forbidden,
            Refusal::SecondFactor => Problem::SecondFactor,
            Refusal::NotFound => Problem::NotFound,
        }
    }
}

impl From<app::console::ConsoleError> for Problem {
    fn from(e: app::console::ConsoleError) -> Self {
        use app::console::ConsoleError as E;
        match e {
            E::Refused(r) => r.into(),
            E::Invalid(e) => Problem::of(&e),
            E::Request(e) => Problem::of(&e),
            E::Store(e) => Problem::of(&e),
        }
    }
}

/// The use cases' errors, each as its kind says.
macro_rules! problems {
    ($($error:ty),*) => {$(
        impl From<$error> for Problem {
            fn from(e: $error) -> Self {
                Problem::of(&e)
            }
        }
    )*};
}
problems!(
    domain::InvalidInput,
    ports::StoreError,
    app::RequestError,
    app::cards::CardError,
    app::cardholders::CardholderError,
    app::events::EventError,
    app::rewards::RewardError
);
