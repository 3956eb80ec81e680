//! Random secrets and codes, and the hashes the server keeps instead of secrets.

use khet_protocol::{CODE_ALPHABET, CODE_CHARS};
use sha2::{Digest, Sha256};

/// Random bytes from the operating system. Without them nothing secret can be made, so a
/// failure ends the request (it does not happen on the systems the server runs on).
fn random_bytes<const N: usize>() -> Result<[u8; N], String> {
    let mut bytes = [0; N];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random numbers: {e}"))?;
    Ok(bytes)
}

pub use khet_protocol::new_secret;

/// A new game code or player id: [`CODE_CHARS`] characters of [`CODE_ALPHABET`] (about 40 bits;
/// the database refuses the rare repeat and the caller draws again).
pub fn new_code() -> Result<String, String> {
    let bytes: [u8; CODE_CHARS] = random_bytes()?;
    // 256 is not a multiple of the alphabet's 31 letters; the small bias does not matter for
    // a name that is not a secret.
    Ok(bytes
        .iter()
        .map(|&b| char::from(CODE_ALPHABET[usize::from(b) % CODE_ALPHABET.len()]))
        .collect())
}

/// What the server stores of a secret: its SHA-256, in hexadecimal.
pub fn hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_codes_have_their_form_and_differ() {
        let a = new_secret().unwrap();
        assert!(khet_protocol::is_secret(&a));
        assert_ne!(a, new_secret().unwrap());
        let code = new_code().unwrap();
        assert_eq!(khet_protocol::check_code(&code), Ok(code.clone()));
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "SHA-256 of `abc` (FIPS 180-2's example)"
        );
    }
}
