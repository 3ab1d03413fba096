//! Start-up recovery: every command that opens a machine first puts back settings that a
//! killed truebench run (SIGKILL, power loss) left changed on that root.

use truebench_host::Host;
use truebench_tuning::{recover, RestoreReport, TuningError};

/// Restore a stale tuning journal on `host`'s root and say so on stderr. Never fails the
/// command: a problem here is reported and the command goes on.
pub fn recover_at_start(host: &Host) {
    match recover(host) {
        Ok(None) => {}
        Ok(Some(r)) => err!("{}", message(&r)),
        Err(e @ TuningError::PermissionDenied { .. }) => errln!(
            "truebench: warning: a killed truebench run left settings changed; restoring them \
             needs root: {e}. Run any truebench command as root to restore them."
        ),
        Err(e) => errln!("truebench: warning: restoring settings left by a killed run: {e}"),
    }
}

fn message(r: &RestoreReport) -> String {
    let who = match r.pid {
        Some(p) => format!("a killed truebench run (pid {p})"),
        None => "a killed truebench run".into(),
    };
    let mut out = String::new();
    if !r.restored.is_empty() {
        out += &format!(
            "truebench: restored {} setting(s) left changed by {who}:\n",
            r.restored.len()
        );
    } else if !r.skipped.is_empty() && r.failed.is_empty() {
        out += &format!(
            "truebench: {who} left {} setting(s) journaled; nothing to write back:\n",
            r.skipped.len()
        );
    }
    if !r.failed.is_empty() {
        out += &format!(
            "truebench: warning: {} setting(s) left changed by {who} could not be restored{}:\n",
            r.failed.len(),
            if r.journal_kept {
                " (the next truebench start tries again)"
            } else {
                ""
            }
        );
    }
    out + &r.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_the_pid_and_every_path() {
        let r = RestoreReport {
            restored: vec!["sys/a".into(), "sys/b".into()],
            failed: vec![("sys/c".into(), "writing \"1\" back failed: EINVAL".into())],
            pid: Some(4242),
            ..Default::default()
        };
        let m = message(&r);
        assert!(
            m.starts_with("truebench: restored 2 setting(s) left changed by a killed truebench run (pid 4242):"),
            "{m}"
        );
        for p in [
            "sys/a\n",
            "sys/b\n",
            "sys/c:",
            "EINVAL",
            "could not be restored",
        ] {
            assert!(m.contains(p), "{p} missing in {m}");
        }
    }
}
