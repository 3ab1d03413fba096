//! AES throughput in `openssl speed` terms: aes-128/192/256-cbc and aes-256-gcm over 16 …
//! 16384-byte chunks, in 1000s of bytes per second (`848212.30k`).
//!
//! The built-in measurement uses RustCrypto's `aes`, `cbc` and `aes-gcm`. They pick AES-NI
//! (and PCLMULQDQ for GHASH) at run time on x86; on aarch64 the ARMv8 Crypto Extensions
//! backends are compiled in only with `--cfg aes_armv8 --cfg polyval_armv8` (set for aarch64
//! targets in the workspace's `.cargo/config.toml`) and then chosen at run time.
//!
//! Each measurement mirrors `openssl speed -evp`: for each chunk size the same buffer is
//! encrypted in place over and over for a fixed time, key setup outside the timing. CBC
//! continues one chain across calls (as `EVP_EncryptUpdate` does); GCM does one complete
//! AEAD operation per chunk (fresh nonce, tag) — what OpenSSL 3's speed loop does too.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use truebench_host::Host;

use crate::pin::{run_pinned, PinError};

/// The chunk sizes of `openssl speed` (1.1.0 and later; 1.0.x stops at 8192).
pub const SIZES: [usize; 6] = [16, 64, 256, 1024, 8192, 16384];

/// The ciphers truebench measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Cipher {
    #[serde(rename = "aes-128-cbc")]
    Aes128Cbc,
    #[serde(rename = "aes-192-cbc")]
    Aes192Cbc,
    #[serde(rename = "aes-256-cbc")]
    Aes256Cbc,
    #[serde(rename = "aes-256-gcm")]
    Aes256Gcm,
}

impl Cipher {
    pub const ALL: [Cipher; 4] = [
        Cipher::Aes128Cbc,
        Cipher::Aes192Cbc,
        Cipher::Aes256Cbc,
        Cipher::Aes256Gcm,
    ];

    /// OpenSSL's name (`openssl speed -evp NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Cipher::Aes128Cbc => "aes-128-cbc",
            Cipher::Aes192Cbc => "aes-192-cbc",
            Cipher::Aes256Cbc => "aes-256-cbc",
            Cipher::Aes256Gcm => "aes-256-gcm",
        }
    }

    /// From any spelling OpenSSL has printed: `aes-128-cbc`, `AES-128-CBC`, `aes-128 cbc`.
    pub fn from_name(s: &str) -> Option<Cipher> {
        let n = s.trim().to_ascii_lowercase().replace(' ', "-");
        Cipher::ALL.into_iter().find(|c| c.name() == n)
    }
}

/// One row of the table: a cipher's throughput per chunk size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesRow {
    /// The name as printed (`aes-128-cbc`, `AES-256-GCM`, `aes-128 cbc`).
    pub name: String,
    /// The cipher, when it is one truebench knows.
    pub cipher: Option<Cipher>,
    /// 1000s of bytes per second, one per column of the table.
    pub k: Vec<f64>,
}

/// A table in `openssl speed` layout.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AesTable {
    /// Chunk sizes of the columns, bytes.
    pub sizes: Vec<usize>,
    pub rows: Vec<AesRow>,
}

impl AesTable {
    /// k (1000 bytes/s) of `cipher` at `size` bytes (first matching row).
    pub fn get(&self, cipher: Cipher, size: usize) -> Option<f64> {
        let col = self.sizes.iter().position(|&s| s == size)?;
        self.rows
            .iter()
            .find(|r| r.cipher == Some(cipher))
            .and_then(|r| r.k.get(col).copied())
    }

    /// The table as `openssl speed` prints it (`type  16 bytes …` header, `%11.2fk` values).
    pub fn text(&self) -> String {
        let mut s = String::from("type        ");
        for size in &self.sizes {
            s.push_str(&format!(" {size:7} bytes"));
        }
        s.push('\n');
        for r in &self.rows {
            s.push_str(&format!("{:<13}", r.name));
            for v in &r.k {
                s.push_str(&format!(" {v:11.2}k"));
            }
            s.push('\n');
        }
        s
    }

    /// Every value of every known cipher is present and positive.
    pub fn is_complete(&self, ciphers: &[Cipher], sizes: &[usize]) -> bool {
        ciphers.iter().all(|&c| {
            sizes
                .iter()
                .all(|&s| self.get(c, s).is_some_and(|v| v > 0.0))
        })
    }
}

/// Does the CPU have AES instructions?
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesCapability {
    /// `Some(true)`: the `aes` flag (x86 `flags`, ARM `Features`) or a RISC-V AES extension
    /// (`zkne`, `zvkned`) is listed; `Some(false)`: the list exists without it; `None`:
    /// no such list in cpuinfo.
    pub cpu_has_aes: Option<bool>,
    /// Which cpuinfo field said so (`flags`, `Features`, `isa`).
    pub field: Option<String>,
    /// Name of the instructions for humans: `AES-NI`, `ARMv8 Crypto Extensions`, …
    pub kind: Option<String>,
}

/// Read the AES capability of `cpu` from cpuinfo (through `host`, so `--cpuinfo` works).
pub fn cpu_aes_capability(host: &Host, cpu: u32) -> AesCapability {
    let text = host.cpuinfo().unwrap_or_default();
    aes_capability_from_cpuinfo(&text, cpu)
}

/// Pure part of [`cpu_aes_capability`].
pub fn aes_capability_from_cpuinfo(text: &str, cpu: u32) -> AesCapability {
    let info = truebench_host::parse::cpuinfo::parse(text);
    let field_of = |key: &str| {
        info.field(cpu, key)
            .or_else(|| info.processors.first().and_then(|p| p.get(key)))
            .or_else(|| info.global(key))
    };
    if let Some(flags) = field_of("flags") {
        let has = flags.split_whitespace().any(|f| f == "aes");
        return AesCapability {
            cpu_has_aes: Some(has),
            field: Some("flags".into()),
            kind: Some("AES-NI".into()),
        };
    }
    if let Some(features) = field_of("Features") {
        let has = features.split_whitespace().any(|f| f == "aes");
        return AesCapability {
            cpu_has_aes: Some(has),
            field: Some("Features".into()),
            kind: Some("ARMv8 Crypto Extensions".into()),
        };
    }
    if let Some(isa) = field_of("isa") {
        let lower = isa.to_ascii_lowercase();
        let has = lower
            .split('_')
            .any(|e| e == "zkne" || e == "zkn" || e == "zk" || e == "zvkned" || e == "zvkn");
        return AesCapability {
            cpu_has_aes: Some(has),
            field: Some("isa".into()),
            kind: Some("RISC-V scalar/vector crypto".into()),
        };
    }
    AesCapability {
        cpu_has_aes: None,
        field: None,
        kind: None,
    }
}

/// Whether this build's AES code uses the CPU's AES instructions right now.
pub fn builtin_uses_aes_instructions() -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse2")
    }
    #[cfg(target_arch = "aarch64")]
    {
        cfg!(aes_armv8) && std::arch::is_aarch64_feature_detected!("aes")
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

/// Settings of a built-in AES measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesOptions {
    pub cpu: Option<u32>,
    /// Time per cipher and chunk size (`openssl speed -seconds`).
    pub seconds: f64,
    pub ciphers: Vec<Cipher>,
    pub sizes: Vec<usize>,
}

impl AesOptions {
    /// 1 s per cell: 24 s for the whole table.
    pub fn standard() -> Self {
        AesOptions {
            cpu: None,
            seconds: 1.0,
            ciphers: Cipher::ALL.to_vec(),
            sizes: SIZES.to_vec(),
        }
    }

    /// 0.05 s per cell: about 1.2 s. Not comparable.
    pub fn quick() -> Self {
        AesOptions {
            seconds: 0.05,
            ..Self::standard()
        }
    }

    pub fn on_cpu(mut self, cpu: u32) -> Self {
        self.cpu = Some(cpu);
        self
    }
}

/// One cell's raw counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesCell {
    pub cipher: Cipher,
    pub size: usize,
    pub ops: u64,
    pub seconds: f64,
}

/// Result of the built-in measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuiltinAesResult {
    pub cpu: Option<u32>,
    pub table: AesTable,
    pub cells: Vec<AesCell>,
    /// The RustCrypto code ran on AES instructions (not the constant-time software fallback).
    pub uses_aes_instructions: bool,
    /// Crate versions, for the log.
    pub implementation: String,
    pub seconds: f64,
}

/// Measure the table on `opts.cpu` with the built-in ciphers.
pub fn measure_builtin(opts: &AesOptions) -> Result<BuiltinAesResult, PinError> {
    let started = Instant::now();
    let o = opts.clone();
    let cells = run_pinned(opts.cpu, move || {
        let mut cells = Vec::new();
        for &cipher in &o.ciphers {
            for &size in &o.sizes {
                let (ops, seconds) = time_cipher(cipher, size, o.seconds);
                cells.push(AesCell {
                    cipher,
                    size,
                    ops,
                    seconds,
                });
            }
        }
        cells
    })?;
    let table = table_from_cells(&opts.ciphers, &opts.sizes, &cells);
    Ok(BuiltinAesResult {
        cpu: opts.cpu,
        table,
        cells,
        uses_aes_instructions: builtin_uses_aes_instructions(),
        implementation: "RustCrypto aes 0.8 + cbc 0.1 + aes-gcm 0.10".into(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn table_from_cells(ciphers: &[Cipher], sizes: &[usize], cells: &[AesCell]) -> AesTable {
    let rows = ciphers
        .iter()
        .map(|&c| AesRow {
            name: c.name().into(),
            cipher: Some(c),
            k: sizes
                .iter()
                .map(|&s| {
                    cells
                        .iter()
                        .find(|x| x.cipher == c && x.size == s)
                        .map(|x| x.ops as f64 * s as f64 / x.seconds / 1000.0)
                        .unwrap_or(0.0)
                })
                .collect(),
        })
        .collect();
    AesTable {
        sizes: sizes.to_vec(),
        rows,
    }
}

/// Count how many `size`-byte encryptions fit in `seconds`. A timer thread raises a flag like
/// openssl's `alarm()`, so the loop pays one relaxed load per operation, not a clock read.
fn time_cipher(cipher: Cipher, size: usize, seconds: f64) -> (u64, f64) {
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let started = Instant::now();
        s.spawn(|| {
            std::thread::sleep(Duration::from_secs_f64(seconds.max(0.001)));
            stop.store(true, Ordering::Relaxed);
        });
        let ops = match cipher {
            Cipher::Aes128Cbc => cbc_loop::<::aes::Aes128>(size, &stop, &[0x2b; 16]),
            Cipher::Aes192Cbc => cbc_loop::<::aes::Aes192>(size, &stop, &[0x2b; 24]),
            Cipher::Aes256Cbc => cbc_loop::<::aes::Aes256>(size, &stop, &[0x2b; 32]),
            Cipher::Aes256Gcm => gcm_loop(size, &stop),
        };
        (ops, started.elapsed().as_secs_f64())
    })
}

fn cbc_loop<C>(size: usize, stop: &AtomicBool, key: &[u8]) -> u64
where
    C: ::aes::cipher::BlockEncrypt + ::aes::cipher::BlockCipher + ::aes::cipher::KeyInit,
    C: ::aes::cipher::BlockSizeUser<BlockSize = ::aes::cipher::consts::U16>,
{
    use ::aes::cipher::{BlockEncryptMut, KeyIvInit};
    let mut enc = cbc::Encryptor::<C>::new_from_slices(key, &[7u8; 16]).expect("key/iv sizes");
    let mut blocks = vec![::aes::Block::default(); size.div_ceil(16)];
    let mut ops = 0u64;
    while !stop.load(Ordering::Relaxed) {
        enc.encrypt_blocks_mut(&mut blocks);
        ops += 1;
    }
    std::hint::black_box(&blocks);
    ops
}

fn gcm_loop(size: usize, stop: &AtomicBool) -> u64 {
    use aes_gcm::aead::AeadInPlace;
    use aes_gcm::{Aes256Gcm, KeyInit, Nonce};
    let gcm = Aes256Gcm::new_from_slice(&[0x2b; 32]).expect("key size");
    let mut buf = vec![0u8; size];
    let mut nonce = [0u8; 12];
    let mut ops = 0u64;
    while !stop.load(Ordering::Relaxed) {
        nonce[..8].copy_from_slice(&ops.to_le_bytes());
        let tag = gcm
            .encrypt_in_place_detached(Nonce::from_slice(&nonce), &[], &mut buf)
            .expect("GCM accepts any length below 64 GiB");
        std::hint::black_box(&tag);
        ops += 1;
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn cbc_is_real_aes_nist_sp800_38a_f21() {
        use ::aes::cipher::{BlockEncryptMut, KeyIvInit};
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c");
        let iv = hex("000102030405060708090a0b0c0d0e0f");
        let mut enc = cbc::Encryptor::<::aes::Aes128>::new_from_slices(&key, &iv).unwrap();
        let mut blocks = [
            *::aes::Block::from_slice(&hex("6bc1bee22e409f96e93d7e117393172a")),
            *::aes::Block::from_slice(&hex("ae2d8a571e03ac9c9eb76fac45af8e51")),
        ];
        // Two calls of one block each: the chain must carry over, as in the benchmark loop.
        enc.encrypt_blocks_mut(&mut blocks[..1]);
        enc.encrypt_blocks_mut(&mut blocks[1..]);
        assert_eq!(
            blocks[0].as_slice(),
            hex("7649abac8119b246cee98e9b12e9197d")
        );
        assert_eq!(
            blocks[1].as_slice(),
            hex("5086cb9b507219ee95db113a917678b2")
        );
    }

    /// The workspace's .cargo/config.toml must compile RustCrypto's ARMv8 backends in;
    /// without it every ARM board would measure the software fallback.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn armv8_crypto_backend_is_compiled_in() {
        assert!(
            cfg!(aes_armv8),
            "build without --cfg aes_armv8 (RUSTFLAGS overrides .cargo/config.toml?)"
        );
    }

    #[test]
    fn cipher_names_in_every_openssl_spelling() {
        assert_eq!(Cipher::from_name("AES-128-CBC"), Some(Cipher::Aes128Cbc));
        assert_eq!(Cipher::from_name("aes-256 cbc"), Some(Cipher::Aes256Cbc));
        assert_eq!(Cipher::from_name("aes-256-gcm"), Some(Cipher::Aes256Gcm));
        assert_eq!(Cipher::from_name("des ede3"), None);
    }

    #[test]
    fn capability_from_x86_arm_riscv_and_nothing() {
        let x86 = "processor\t: 0\nflags\t\t: fpu sse2 aes avx\n\nprocessor\t: 1\nflags\t\t: fpu sse2 aes avx\n";
        let c = aes_capability_from_cpuinfo(x86, 1);
        assert_eq!(c.cpu_has_aes, Some(true));
        assert_eq!(c.kind.as_deref(), Some("AES-NI"));
        // RPi 4 (Cortex-A72 without crypto extensions).
        let rpi4 = "processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\n";
        assert_eq!(
            aes_capability_from_cpuinfo(rpi4, 0).cpu_has_aes,
            Some(false)
        );
        let h5 = "processor\t: 0\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\n";
        assert_eq!(aes_capability_from_cpuinfo(h5, 0).cpu_has_aes, Some(true));
        let rv = "processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc_zicsr_zifencei\n";
        assert_eq!(aes_capability_from_cpuinfo(rv, 0).cpu_has_aes, Some(false));
        assert_eq!(aes_capability_from_cpuinfo("", 0).cpu_has_aes, None);
    }

    #[test]
    fn table_text_has_openssl_layout() {
        let t = AesTable {
            sizes: vec![16, 64],
            rows: vec![AesRow {
                name: "aes-128-cbc".into(),
                cipher: Some(Cipher::Aes128Cbc),
                k: vec![848212.3, 1234.5],
            }],
        };
        assert_eq!(
            t.text(),
            "type              16 bytes      64 bytes\naes-128-cbc     848212.30k     1234.50k\n"
        );
        assert_eq!(t.get(Cipher::Aes128Cbc, 64), Some(1234.5));
        assert_eq!(t.get(Cipher::Aes128Cbc, 8192), None);
    }
}
