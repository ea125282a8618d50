//! Program tables as text: words packed into base64 (the standard alphabet, without padding),
//! so that a generated module holds its tables in one string literal without escapes.

/// The standard base64 alphabet: the digit of each 6-bit value.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Packs words into text that a Rust string literal holds without escapes: little-endian
/// bytes in base64 (the generated module keeps its tables in one literal, which rustc reads
/// quickly however large it is).
pub fn words_to_text(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    encode(&bytes)
}

/// The words that [`words_to_text`] packed.
pub fn text_to_words(text: &str) -> Result<Vec<u32>, String> {
    let bytes = decode(text).map_err(|e| format!("the program table is not valid base64: {e}"))?;
    if bytes.len() % 4 != 0 {
        return Err("the program table is not a whole number of words".to_string());
    }
    Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Bytes in base64: four digits for every three bytes, and two or three digits for the one or
/// two bytes left over.
fn encode(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let group = chunk.iter().enumerate().fold(0u32, |g, (i, &b)| g | u32::from(b) << (16 - 8 * i));
        for digit in 0..=chunk.len() {
            text.push(char::from(ALPHABET[(group >> (18 - 6 * digit) & 63) as usize]));
        }
    }
    text
}

/// The bytes of base64 text without padding, refusing a character outside the alphabet, a
/// length that no bytes encode, and unused bits that are not zero (so that each byte string has
/// exactly one text).
fn decode(text: &str) -> Result<Vec<u8>, String> {
    let digits = text.as_bytes();
    if digits.len() % 4 == 1 {
        return Err(format!("{} digits encode no whole number of bytes", digits.len()));
    }
    let mut bytes = Vec::with_capacity(digits.len() / 4 * 3 + 2);
    for chunk in digits.chunks(4) {
        let mut group = 0u32;
        for (i, &digit) in chunk.iter().enumerate() {
            group |= u32::from(value_of(digit)?) << (18 - 6 * i);
        }
        let len = chunk.len() - 1;
        if group & (0xff_ffff >> (8 * len)) != 0 {
            return Err("the last digit has bits past the end of the bytes".to_string());
        }
        bytes.extend((0..len).map(|i| (group >> (16 - 8 * i)) as u8));
    }
    Ok(bytes)
}

/// The 6-bit value of a base64 digit.
fn value_of(digit: u8) -> Result<u8, String> {
    match digit {
        b'A'..=b'Z' => Ok(digit - b'A'),
        b'a'..=b'z' => Ok(digit - b'a' + 26),
        b'0'..=b'9' => Ok(digit - b'0' + 52),
        b'+' => Ok(62),
        b'/' => Ok(63),
        _ => Err(format!("`{}` is not a base64 digit", char::from(digit).escape_default())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vectors of RFC 4648, section 10, without their padding.
    const VECTORS: [(&str, &str); 7] = [
        ("", ""),
        ("f", "Zg"),
        ("fo", "Zm8"),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg"),
        ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ];

    #[test]
    fn the_rfc_vectors_encode_and_decode() {
        for (bytes, text) in VECTORS {
            assert_eq!(encode(bytes.as_bytes()), text);
            assert_eq!(decode(text).unwrap(), bytes.as_bytes());
        }
    }

    #[test]
    fn every_byte_value_round_trips() {
        let bytes: Vec<u8> = (0..=255).collect();
        for len in [0, 1, 2, 3, 254, 255, 256] {
            assert_eq!(decode(&encode(&bytes[..len])).unwrap(), &bytes[..len]);
        }
        assert!(encode(&bytes).bytes().all(|c| ALPHABET.contains(&c)));
    }

    #[test]
    fn malformed_text_is_refused() {
        assert!(decode("Zg==").is_err(), "padding");
        assert!(decode("Zm9vY").is_err(), "a length no bytes encode");
        assert!(decode("Zh").is_err(), "unused bits set");
        assert!(decode("Zm9v Yg").is_err(), "a space");
        assert!(text_to_words("Zm9vYmE").is_err(), "bytes that are not whole words");
    }
}
