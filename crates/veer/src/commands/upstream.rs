//! Where the recording proxy sends an agent's calls. The proxy takes the agent's place as its
//! SDKs' base URL, so the upstream must be the endpoint the agent would have used itself: the
//! `--openai-upstream` / `--anthropic-upstream` flag when given, else the agent's own
//! `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` (a LiteLLM, vLLM or company gateway), and only when
//! neither is set the provider's public API. Azure OpenAI clients read `AZURE_OPENAI_ENDPOINT`
//! instead: when it (or `--azure-upstream`) is set, that endpoint is the Azure upstream and the
//! agent's variable points at the proxy; without either, Azure is not proxied. Traffic is never sent anywhere the user did not
//! choose, and the choice is said before the agent starts.

use crate::error::CliError;

/// Where one upstream URL came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The command-line flag (its name).
    Flag(&'static str),
    /// The agent's environment variable (its name).
    Env(&'static str),
    /// Neither was set: the provider's public API.
    Default,
}

/// One provider's upstream: the base URL and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// The base URL (OpenAI's ends in `/v1`, Anthropic's does not), as given.
    pub url: String,
    /// Where it came from.
    pub source: Source,
}

/// The OpenAI and Anthropic upstreams of one recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstreams {
    /// Where OpenAI(-compatible) calls go.
    pub openai: Upstream,
    /// Where Anthropic calls go.
    pub anthropic: Upstream,
    /// Where Azure OpenAI calls go: `--azure-upstream`, else the agent's own
    /// `AZURE_OPENAI_ENDPOINT`; `None` when neither is set (Azure is then not proxied).
    pub azure: Option<Upstream>,
}

/// A variable's value, `None` when unset, empty or blank (as the SDKs treat it).
fn env_value(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

impl Upstreams {
    /// The upstreams for the flags given (`None` when absent), read from the environment
    /// otherwise. Errors: a flag or variable that is not an http(s) URL, named.
    pub fn resolve(openai: Option<&str>, anthropic: Option<&str>) -> Result<Upstreams, CliError> {
        Self::resolve_with_azure(openai, anthropic, None)
    }

    /// [`Upstreams::resolve`] with the `--azure-upstream` flag (`None` when absent).
    pub fn resolve_with_azure(
        openai: Option<&str>,
        anthropic: Option<&str>,
        azure: Option<&str>,
    ) -> Result<Upstreams, CliError> {
        Self::resolve_with(openai, anthropic, azure, env_value)
    }

    fn resolve_with(
        openai: Option<&str>,
        anthropic: Option<&str>,
        azure: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Upstreams, CliError> {
        let pick = |flag: Option<&str>,
                    flag_name: &'static str,
                    var: &'static str,
                    default: &str|
         -> Result<Upstream, CliError> {
            let up = match (flag, env(var)) {
                (Some(url), _) => Upstream {
                    url: url.to_owned(),
                    source: Source::Flag(flag_name),
                },
                (None, Some(url)) => Upstream {
                    url,
                    source: Source::Env(var),
                },
                (None, None) => Upstream {
                    url: default.to_owned(),
                    source: Source::Default,
                },
            };
            let shown = match up.source {
                Source::Flag(f) => f.to_owned(),
                Source::Env(v) => format!("${v}"),
                Source::Default => "the default upstream".to_owned(),
            };
            check_url(&shown, &up.url)?;
            Ok(up)
        };
        Ok(Upstreams {
            openai: pick(
                openai,
                "--openai-upstream",
                "OPENAI_BASE_URL",
                veer_record::proxy::OPENAI_DEFAULT,
            )?,
            anthropic: pick(
                anthropic,
                "--anthropic-upstream",
                "ANTHROPIC_BASE_URL",
                veer_record::proxy::ANTHROPIC_DEFAULT,
            )?,
            azure: match (azure, env("AZURE_OPENAI_ENDPOINT")) {
                (Some(url), _) => Some(Upstream {
                    url: url.to_owned(),
                    source: Source::Flag("--azure-upstream"),
                }),
                (None, Some(url)) => Some(Upstream {
                    url,
                    source: Source::Env("AZURE_OPENAI_ENDPOINT"),
                }),
                (None, None) => None,
            }
            .map(|up| {
                let shown = match up.source {
                    Source::Flag(f) => f.to_owned(),
                    _ => "$AZURE_OPENAI_ENDPOINT".to_owned(),
                };
                check_url(&shown, &up.url).map(|()| up)
            })
            .transpose()?,
        })
    }

    /// The lines said before the agent starts: where each provider's calls go and why.
    pub fn describe(&self) -> Vec<String> {
        let line = |who: &str, up: &Upstream| {
            let why = match &up.source {
                Source::Flag(f) => format!("from {f}"),
                Source::Env(v) => format!("from the agent's {v}"),
                Source::Default => "the public API: no flag and no base URL set".to_owned(),
            };
            format!("{who} calls go to {} ({why})", up.url)
        };
        let mut out = vec![
            line("OpenAI", &self.openai),
            line("Anthropic", &self.anthropic),
        ];
        if let Some(up) = &self.azure {
            out.push(line("Azure OpenAI", up));
        }
        out
    }
}

/// `url` is an http(s) URL with a host and no whitespace; else an error naming `what` (a flag
/// or a variable).
pub(crate) fn check_url(what: &str, url: &str) -> Result<(), CliError> {
    let host = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .and_then(|rest| rest.split('/').next())
        .unwrap_or("");
    if !host.is_empty() && !url.contains(char::is_whitespace) {
        return Ok(());
    }
    let example = if let Some(var) = what.strip_prefix('$') {
        format!("{var}=http://127.0.0.1:8000/v1")
    } else {
        format!("{what} http://127.0.0.1:8000/v1")
    };
    Err(
        CliError::input(format!("{what}: not an http(s) URL: {url}"))
            .hint(format!("give a base URL, e.g. {example}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_agents_own_base_url_is_the_upstream_and_the_flag_wins() {
        let vars = [
            ("OPENAI_BASE_URL", "http://gateway.internal:4000/v1"),
            ("ANTHROPIC_BASE_URL", "https://claude.corp.example"),
        ];
        let up = Upstreams::resolve_with(None, None, None, env(&vars)).unwrap();
        assert_eq!(up.openai.url, "http://gateway.internal:4000/v1");
        assert_eq!(up.openai.source, Source::Env("OPENAI_BASE_URL"));
        assert_eq!(up.anthropic.url, "https://claude.corp.example");
        let lines = up.describe();
        assert_eq!(
            lines[0],
            "OpenAI calls go to http://gateway.internal:4000/v1 (from the agent's OPENAI_BASE_URL)"
        );
        let up =
            Upstreams::resolve_with(Some("http://127.0.0.1:9/v1"), None, None, env(&vars)).unwrap();
        assert_eq!(up.openai.url, "http://127.0.0.1:9/v1");
        assert_eq!(up.openai.source, Source::Flag("--openai-upstream"));
        assert_eq!(up.anthropic.source, Source::Env("ANTHROPIC_BASE_URL"));
    }

    #[test]
    fn the_public_api_only_when_nothing_is_set_and_said_so() {
        let up = Upstreams::resolve_with(None, None, None, env(&[])).unwrap();
        assert_eq!(up.openai.url, veer_record::proxy::OPENAI_DEFAULT);
        assert_eq!(up.openai.source, Source::Default);
        assert!(
            up.describe()[0].contains("the public API"),
            "{:?}",
            up.describe()
        );
        assert!(up.azure.is_none());
    }

    #[test]
    fn a_bad_variable_is_named() {
        let e = Upstreams::resolve_with(
            None,
            None,
            None,
            env(&[("OPENAI_BASE_URL", "gateway:4000")]),
        )
        .unwrap_err();
        assert!(e.message.contains("$OPENAI_BASE_URL"), "{}", e.message);
        let e = Upstreams::resolve_with(
            None,
            None,
            None,
            env(&[("AZURE_OPENAI_ENDPOINT", "x.openai.azure.com")]),
        )
        .unwrap_err();
        assert!(
            e.message.contains("$AZURE_OPENAI_ENDPOINT"),
            "{}",
            e.message
        );
    }

    #[test]
    fn azures_own_endpoint_becomes_the_azure_upstream_and_the_flag_wins() {
        let vars = [("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com")];
        let up = Upstreams::resolve_with(None, None, None, env(&vars)).unwrap();
        assert_eq!(up.openai.source, Source::Default);
        let azure = up.azure.clone().unwrap();
        assert_eq!(azure.url, "https://x.openai.azure.com");
        assert_eq!(azure.source, Source::Env("AZURE_OPENAI_ENDPOINT"));
        assert_eq!(
            up.describe()[2],
            "Azure OpenAI calls go to https://x.openai.azure.com (from the agent's AZURE_OPENAI_ENDPOINT)"
        );
        let up =
            Upstreams::resolve_with(None, None, Some("http://127.0.0.1:9"), env(&vars)).unwrap();
        assert_eq!(up.azure.unwrap().source, Source::Flag("--azure-upstream"));
    }
}
