//! Files the CLI writes where other users may write too (a shared folder, `/tmp`): never
//! through a link someone planted, never over a file that is already there unless replacing
//! it is the point — and then by renaming a new file over the name, which replaces a link
//! itself and never writes into what it points to.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Put `bytes` at `path`, replacing what is there: written to a new file of an unpredictable
/// name beside it (created exclusively), then renamed over `path`. A reader never sees half a
/// file; the temporary is removed on every error.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    place(path, bytes, true)
}

/// Put `bytes` at `path` as [`replace`] does, but only where nothing is there yet (the
/// rename refuses an existing name with `AlreadyExists`): a reader never sees half a file and
/// no other file is overwritten.
pub fn create_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    place(path, bytes, false)
}

fn place(path: &Path, bytes: &[u8], over: bool) -> std::io::Result<()> {
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
    // Through the file itself: the error names the file being written, not the temporary
    // (which is removed).
    tmp.as_file_mut().write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if over {
        tmp.persist(path).map_err(|e| e.error)?;
    } else {
        tmp.persist_noclobber(path).map_err(|e| e.error)?;
    }
    Ok(())
}

/// The largest result document or sbc-bench log read: the largest real ones are a few MiB
/// (a long `monitor` timeline, an sbc-bench log with its kernel log); anything past this is
/// refused before it is read, never loaded whole.
pub const MAX_INPUT: u64 = 256 << 20;

/// `path`'s bytes, or an error naming the file and the limit when it is larger than
/// [`MAX_INPUT`] (a device or a pipe is read up to the limit, then refused likewise).
pub fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let too_big = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB: no result document or sbc-bench log is; refused",
                MAX_INPUT >> 20
            ),
        )
    };
    // Opened without waiting (a FIFO nobody writes to would block the open forever), then
    // read normally: a pipe with a writer (`… | truebench import /dev/stdin`) is read to its
    // end, one without gives nothing.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    {
        use std::os::fd::AsRawFd;
        let fd = f.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns; only O_NONBLOCK is cleared.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    if f.metadata()?.len() > MAX_INPUT {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    f.take(MAX_INPUT + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(too_big());
    }
    Ok(bytes)
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
        let e = create_atomic(&link, b"page").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        let dangling = d.path().join("dangling");
        std::os::unix::fs::symlink(d.path().join("created-elsewhere"), &dangling).unwrap();
        assert!(create_atomic(&dangling, b"page").is_err());
        assert!(!d.path().join("created-elsewhere").exists());
        assert!(std::fs::symlink_metadata(&dangling).unwrap().is_symlink());
        create_atomic(&d.path().join("new"), b"page").unwrap();
        assert_eq!(std::fs::read(d.path().join("new")).unwrap(), b"page");
        std::fs::remove_file(d.path().join("new")).unwrap();
        replace(&link, b"page").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read(&link).unwrap(), b"page");
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 3);
    }

    #[test]
    fn an_input_past_the_limit_is_refused_unread() {
        let d = tempfile::tempdir().unwrap();
        let big = d.path().join("big.log");
        // Sparse: the size says it all, nothing is written or read.
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_INPUT + 1)
            .unwrap();
        let e = read_input(&big).unwrap_err().to_string();
        assert!(e.contains("256 MiB"), "{e}");
        std::fs::write(d.path().join("small"), b"x").unwrap();
        assert_eq!(read_input(&d.path().join("small")).unwrap(), b"x");
        // A FIFO nobody writes to: nothing, at once.
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(read_input(&fifo).unwrap().is_empty());
    }
}
