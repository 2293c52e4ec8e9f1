#!/usr/bin/env python3
"""AES Everywhere ciphertexts from the reference library (PyPI
`aes-everywhere`), for the Rust implementation's compatibility tests.

    reference.py make   > vectors.json   # ciphertexts made by the reference library
    reference.py check  < rust.json      # the reference library decrypts Rust's ciphertexts

`vectors.json` beside this file was made with `make` and is committed, so
the tests can read it on machines without Python.
"""
import json
import sys

from AesEverywhere import aes256

CASES = [
    ("1234", "sk_test_0123456789abcdefghij0123456789abcdefghij"),
    ("0000", "sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"),
    ("9876", "pass"),
    ("", "empty plaintext"),
    ("exactly16bytes!!", "block-aligned"),
    ("Data 😄 текст", "pass"),
    ("a longer value that spans several AES blocks " * 5, "sk_test_long"),
    ("4321", "pässwörd ünïcode"),
]


def make():
    vectors = [
        {"plain": plain, "passphrase": passphrase, "ciphertext": aes256.encrypt(plain, passphrase).decode()}
        for plain, passphrase in CASES
    ]
    json.dump(vectors, sys.stdout, ensure_ascii=False, indent=1)
    print()


def check():
    failures = 0
    for v in json.load(sys.stdin):
        got = aes256.decrypt(v["ciphertext"], v["passphrase"]).decode()
        if got != v["plain"]:
            failures += 1
            print(f"mismatch for passphrase {v['passphrase']!r}: {got!r} != {v['plain']!r}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]]()
