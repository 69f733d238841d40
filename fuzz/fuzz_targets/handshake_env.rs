//! go-plugin's handshake environment, read as a pure function of it
//! (`HandshakeEnv::read`): arbitrary bytes as the values of the variables
//! the client sets. Never a panic; what is accepted is consistent.
#![no_main]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use ctywire_tfplugin6::{HandshakeEnv, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, PROTOCOL_VERSION};
use libfuzzer_sys::fuzz_target;

const KEYS: [&str; 6] = [
    "PLUGIN_PROTOCOL_VERSIONS",
    "PLUGIN_CLIENT_CERT",
    "PLUGIN_UNIX_SOCKET_DIR",
    "PLUGIN_MIN_PORT",
    "PLUGIN_MAX_PORT",
    MAGIC_COOKIE_KEY,
];

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    // The values, split at 0xff; bit i of `flags` unsets the i-th; the
    // cookie is Terraform's unless bit 7 says to use the bytes given.
    let mut values: Vec<Option<Vec<u8>>> = rest
        .split(|&b| b == 0xff)
        .chain(std::iter::repeat(&[][..]))
        .take(KEYS.len())
        .enumerate()
        .map(|(i, v)| (flags & (1 << i) == 0).then(|| v.to_vec()))
        .collect();
    if flags & 0x80 == 0 {
        values[5] = Some(MAGIC_COOKIE_VALUE.as_bytes().to_vec());
    }
    let var = |key: &str| {
        let i = KEYS.iter().position(|k| *k == key)?;
        values[i].clone().map(OsString::from_vec)
    };
    let Ok(env) = HandshakeEnv::read(var) else {
        return;
    };
    assert_eq!(env.protocol_version, PROTOCOL_VERSION);
    assert_eq!(
        values[5].as_deref(),
        Some(MAGIC_COOKIE_VALUE.as_bytes()),
        "accepted without Terraform's cookie"
    );
    if let Some(cert) = &env.client_cert {
        assert!(!cert.is_empty());
        assert!(values[1].as_ref().is_some_and(|pem| !pem.is_empty()));
    }
});
