//! Compatibility with the reference AES Everywhere library (PyPI
//! `aes-everywhere`), both directions: its committed ciphertexts decrypt
//! here, and, where Python has the library (CI installs it), fresh
//! ciphertexts from each side are decrypted by the other.

use domain::Secret;
use issuing_adapters::crypto::aes_everywhere::{decrypt, encrypt};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::process::{Command, Stdio};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/aes_everywhere/reference.py");

#[derive(Serialize, Deserialize)]
struct Vector {
    plain: String,
    passphrase: String,
    ciphertext: String,
}

fn decrypts_all(vectors: &[Vector]) {
    for v in vectors {
        let clear = decrypt(&v.ciphertext, &Secret::new(v.passphrase.clone()))
            .unwrap_or_else(|_| panic!("reference ciphertext for {:?} did not decrypt", v.plain));
        assert_eq!(clear.expose(), v.plain.as_bytes());
    }
}

fn python_has_the_reference_library() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import AesEverywhere"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        let _ = writeln!(
            std::io::stderr(),
            "note: python3 with aes-everywhere is not installed (pip install aes-everywhere): \
             only the committed reference ciphertexts were checked"
        );
    }
    found
}

#[test]
fn committed_reference_ciphertexts_decrypt() {
    let vectors: Vec<Vector> = serde_json::from_str(include_str!("aes_everywhere/vectors.json")).unwrap();
    assert!(vectors.len() >= 8);
    decrypts_all(&vectors);
}

#[test]
fn fresh_reference_ciphertexts_decrypt_and_ours_decrypt_there() {
    if !python_has_the_reference_library() {
        return;
    }
    let made = Command::new("python3").args([SCRIPT, "make"]).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let theirs: Vec<Vector> = serde_json::from_slice(&made.stdout).unwrap();
    decrypts_all(&theirs);

    let ours: Vec<Vector> = theirs
        .into_iter()
        .map(|v| Vector {
            ciphertext: encrypt(v.plain.as_bytes(), &Secret::new(v.passphrase.clone())),
            ..v
        })
        .collect();
    let mut check = Command::new("python3")
        .args([SCRIPT, "check"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(check.stdin.take().unwrap(), &ours).unwrap();
    let checked = check.wait_with_output().unwrap();
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
}
