//! Adapter parsers on real tool output (tests/data/README.md names the sources).

use std::path::PathBuf;
use truebench_workloads::aes::{Cipher, SIZES};
use truebench_workloads::{openssl, sevenzip};

fn data(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn openssl_1_0_x_tables_have_five_sizes() {
    for (file, version) in [
        ("openssl/sbc-bench-1ixi-openssl-1.0.2g.txt", "1.0.2g"),
        ("openssl/sbc-bench-1ixL-openssl-1.0.1t.txt", "1.0.1t"),
    ] {
        let text = data(file);
        assert_eq!(openssl::parse_version(&text).as_deref(), Some(version));
        let t = openssl::parse_speed(&text).unwrap();
        assert_eq!(t.sizes, vec![16, 64, 256, 1024, 8192], "{file}");
        assert_eq!(t.rows.len(), 6, "{file}");
        assert!(t.rows.iter().all(|r| r.k.len() == 5 && r.cipher.is_some()));
    }
    let t = openssl::parse_speed(&data("openssl/sbc-bench-1ixi-openssl-1.0.2g.txt")).unwrap();
    assert_eq!(t.get(Cipher::Aes128Cbc, 16), Some(49674.25));
    assert_eq!(t.rows[5].k[4], 48496.64);
}

#[test]
fn openssl_1_1_and_3_tables_have_six_sizes() {
    for (file, version, first, last) in [
        (
            "openssl/sbc-bench-1isD-openssl-1.1.0f.txt",
            "1.1.0f",
            35784.11,
            42729.47,
        ),
        (
            "openssl/sbc-bench-2FrG-openssl-1.1.1f.txt",
            "1.1.1f",
            746471.10,
            1424785.41,
        ),
        (
            "openssl/sbc-bench-3Wq0-openssl-3.0.2.txt",
            "3.0.2",
            339708.40,
            941036.89,
        ),
        (
            "openssl/sbc-bench-Xd38a-openssl-3.5.5.txt",
            "3.5.5",
            145071.63,
            1305477.12,
        ),
    ] {
        let text = data(file);
        assert_eq!(
            openssl::parse_version(&text).as_deref(),
            Some(version),
            "{file}"
        );
        let t = openssl::parse_speed(&text).unwrap();
        assert_eq!(t.sizes, SIZES.to_vec(), "{file}");
        assert_eq!(t.rows.len(), 6, "{file}");
        assert_eq!(t.rows[0].k[0], first, "{file}");
        // The `(Cortex-A72)` tag after the last value is not a value.
        assert_eq!(*t.rows[5].k.last().unwrap(), last, "{file}");
        assert!(t.rows.iter().all(|r| r.k.len() == 6));
    }
}

#[test]
fn openssl_3_raw_speed_output_of_this_machine() {
    let cbc = data("openssl/debian12-openssl-3.0.19-aes-128-cbc.txt");
    assert_eq!(openssl::parse_version(&cbc).as_deref(), Some("3.0.19"));
    let t = openssl::parse_speed(&cbc).unwrap();
    assert_eq!(t.rows.len(), 1);
    assert_eq!(t.rows[0].name, "AES-128-CBC");
    assert_eq!(t.get(Cipher::Aes128Cbc, 16384), Some(1573634.05));
    assert!(t.is_complete(&[Cipher::Aes128Cbc], &SIZES));

    // stderr merged: the `Doing AES-256-GCM for 1s on 16 size blocks: …` lines are not rows.
    let gcm = data("openssl/debian12-openssl-3.0.19-aes-256-gcm.txt");
    let t = openssl::parse_speed(&gcm).unwrap();
    assert_eq!(t.rows.len(), 1);
    assert_eq!(t.get(Cipher::Aes256Gcm, 16), Some(36264.66));
    assert_eq!(t.get(Cipher::Aes256Gcm, 16384), Some(4846469.12));

    // -multi: no `type` header; sizes from the row width; `Got: +F:…` lines ignored.
    let multi = data("openssl/debian12-openssl-3.0.19-multi2-aes-128-cbc.txt");
    let t = openssl::parse_speed(&multi).unwrap();
    assert_eq!(t.sizes, SIZES.to_vec());
    assert_eq!(t.rows.len(), 1);
    assert_eq!(t.get(Cipher::Aes128Cbc, 16), Some(672951.34));
}

#[test]
fn p7zip_16_02_single_and_multi() {
    let b = sevenzip::parse_bench(&data("7zip/sbc-bench-3Wq0-p7zip-16.02-mmt1.txt")).unwrap();
    assert_eq!(b.version.as_deref(), Some("16.02"));
    assert!(b.p7zip);
    assert_eq!(b.ram_usage_mb, Some(435));
    assert_eq!(b.ram_size_mb, Some(7951));
    assert_eq!(b.threads, Some(1));
    assert_eq!(b.lines.len(), 4);
    assert_eq!(b.lines[0].dict_log2, 22);
    assert_eq!(b.lines[0].compress.speed_kib_s, Some(1812));
    assert_eq!(b.lines[3].decompress.rating_mips, 2368);
    // 16.02's Avr: line has no speed column.
    assert_eq!(b.avr_compress.unwrap().speed_kib_s, None);
    assert_eq!(b.compress_mips(), Some(1738));
    assert_eq!(b.decompress_mips(), Some(2403));
    assert_eq!(b.total_mips(), Some(2071));
    assert_eq!(b.total.unwrap().usage_pct, 99);

    let m = sevenzip::parse_bench(&data("7zip/sbc-bench-3Wq0-p7zip-16.02-multi.txt")).unwrap();
    assert_eq!(m.threads, Some(8));
    assert_eq!(m.ram_usage_mb, Some(1765));
    assert_eq!(m.total_mips(), Some(12120));
    assert_eq!(m.compress_mips(), Some(9109));
    assert_eq!(m.decompress_mips(), Some(15130));
}

#[test]
fn p7zip_9_20_avr_line_without_separator() {
    let b = sevenzip::parse_bench(&data("7zip/sbc-bench-1iGV-p7zip-9.20-multi.txt")).unwrap();
    assert_eq!(b.version.as_deref(), Some("9.20"));
    assert_eq!(b.threads, Some(4));
    assert_eq!(b.lines.len(), 4);
    assert_eq!(b.lines[0].compress.speed_kib_s, Some(564));
    assert_eq!(b.compress_mips(), Some(573));
    assert_eq!(b.decompress_mips(), Some(908));
    assert_eq!(b.total_mips(), Some(741));
}

#[test]
fn seven_zip_26_02_of_this_machine() {
    let b = sevenzip::parse_bench(&data("7zip/debian12-7zip-26.02-x64-mmt1.txt")).unwrap();
    assert_eq!(b.version.as_deref(), Some("26.02"));
    assert!(!b.p7zip);
    assert_eq!(b.ram_usage_mb, Some(437));
    assert_eq!(b.threads, Some(1));
    assert_eq!(b.lines.len(), 4);
    // 21+ prints the speed on the Avr: line too.
    assert_eq!(b.avr_compress.unwrap().speed_kib_s, Some(1578));
    assert_eq!(b.avr_decompress.unwrap().speed_kib_s, Some(22402));
    assert_eq!(b.total_mips(), Some(1802));
    let mean = b.compress_speed_kib_s().unwrap();
    assert!((mean - (1415 + 1862 + 1921 + 1113) as f64 / 4.0).abs() < 1e-9);

    let m = sevenzip::parse_bench(&data("7zip/debian12-7zip-26.02-x64-mmt2.txt")).unwrap();
    assert_eq!(m.threads, Some(2));
    assert_eq!(m.total_mips(), Some(3829));
    assert_eq!(m.compress_mips(), Some(4218));
}

#[test]
fn several_runs_in_one_log_are_all_found() {
    let text = format!(
        "{}\n{}\n{}",
        data("7zip/sbc-bench-3Wq0-p7zip-16.02-mmt1.txt"),
        data("7zip/sbc-bench-3Wq0-p7zip-16.02-multi.txt"),
        data("7zip/debian12-7zip-26.02-x64-mmt2.txt")
    );
    let all = sevenzip::parse_all(&text);
    let totals: Vec<_> = all.iter().map(|b| b.total_mips().unwrap()).collect();
    assert_eq!(totals, vec![2071, 12120, 3829]);
}
