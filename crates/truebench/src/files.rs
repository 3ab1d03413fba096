//! Files the CLI writes where other users may write too (a shared folder, `/tmp`): never
//! through a link someone planted, never over a file that is already there unless replacing
//! it is the point — and then by renaming a new file over the name, which replaces a link
//! itself and never writes into what it points to.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Create `path`, which must not exist: a file or a link (even a dangling one) at that name
/// is refused (`AlreadyExists`), never followed.
pub fn create_new(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .mode(0o644)
        .open(path)
}

/// Put `bytes` at `path`, replacing what is there: written to a new file of an unpredictable
/// name beside it (created exclusively), then renamed over `path`. A reader never sees half a
/// file; the temporary is removed on every error.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_link_is_refused_or_replaced_never_written_through() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = d.path().join("out");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = create_new(&link).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        let dangling = d.path().join("dangling");
        std::os::unix::fs::symlink(d.path().join("created-elsewhere"), &dangling).unwrap();
        assert!(create_new(&dangling).is_err());
        assert!(!d.path().join("created-elsewhere").exists());
        replace(&link, b"page").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read(&link).unwrap(), b"page");
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 3);
    }
}
