//! `truebench generate`: man pages and completions made from the clap definition — every
//! visible command gets its page and is completed; the hidden `measure` does not leak.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

#[test]
fn man_pages_for_every_visible_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["generate", "man"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for cmd in [
        "run", "clocks", "history", "review", "kernel", "serve", "io", "net",
    ] {
        assert!(
            names.contains(&format!("truebench-{cmd}.1")),
            "{cmd}: {names:?}"
        );
    }
    assert!(!names.iter().any(|n| n.contains("measure")), "{names:?}");
    let top = std::fs::read_to_string(dir.path().join("truebench.1")).unwrap();
    assert!(
        top.starts_with(".ie") || top.contains(".TH truebench 1"),
        "{top}"
    );
    let run = std::fs::read_to_string(dir.path().join("truebench-run.1")).unwrap();
    assert!(run.contains("\\-\\-quick"), "the options are documented");
    assert!(String::from_utf8_lossy(&out.stderr).contains("man pages in"));
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for (shell, marker, option) in [
        ("bash", "complete -F _truebench", "--db"),
        ("zsh", "#compdef truebench", "--db"),
        ("fish", "complete -c truebench", "-l db"),
    ] {
        let out = Command::new(BIN)
            .args(["generate", "completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(marker), "{shell}");
        assert!(
            text.contains("governors"),
            "{shell}: commands are completed"
        );
        assert!(text.contains(option), "{shell}: options are completed");
    }
    let out = Command::new(BIN)
        .args(["generate", "completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bash"));
}
