//! A bounds-checked cursor over untrusted bytes.
//!
//! Every method returns `Result`; nothing here can panic or read past the end.

use crate::error::{Error, Result};

/// A cursor over a byte slice. Each accessor consumes what it returns.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    /// Names the structure being parsed, for error messages.
    context: &'static str,
}

impl<'a> Reader<'a> {
    /// Starts reading `buf`; `context` names the structure for [`Error::Truncated`].
    pub(crate) fn new(buf: &'a [u8], context: &'static str) -> Self {
        Self { buf, context }
    }

    /// True when every octet has been consumed.
    pub(super) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    fn truncated(&self) -> Error {
        Error::Truncated(self.context)
    }

    /// One octet.
    pub(super) fn u8(&mut self) -> Result<u8> {
        let (&first, rest) = self.buf.split_first().ok_or_else(|| self.truncated())?;
        self.buf = rest;
        Ok(first)
    }

    /// A big-endian 32-bit number.
    pub(super) fn be_u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array::<4>()?))
    }

    /// A fixed-size array.
    pub(super) fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let (head, rest) = self.buf.split_first_chunk::<N>().ok_or_else(|| self.truncated())?;
        self.buf = rest;
        Ok(*head)
    }

    /// The next `n` octets.
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let (head, rest) = self.buf.split_at_checked(n).ok_or_else(|| self.truncated())?;
        self.buf = rest;
        Ok(head)
    }

    /// A sub-reader over the next `n` octets, with its own context.
    pub(super) fn sub(&mut self, n: usize, context: &'static str) -> Result<Reader<'a>> {
        Ok(Reader::new(self.take(n)?, context))
    }

    /// Everything not yet consumed.
    pub(super) fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.buf)
    }

    /// Succeeds only if every octet was consumed.
    pub(crate) fn finish(self) -> Result<()> {
        if self.buf.is_empty() { Ok(()) } else { Err(Error::malformed(self.context_trailing())) }
    }

    fn context_trailing(&self) -> &'static str {
        // The context string doubles as the error location; trailing data is reported under it.
        self.context
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_bounds() {
        let mut r = Reader::new(&[1, 0, 2, 0, 0, 0, 3, 9, 9], "test");
        assert_eq!(r.u8().unwrap(), 1);
        assert_eq!(r.array::<2>().unwrap(), [0, 2]);
        assert_eq!(r.be_u32().unwrap(), 3);
        assert!(matches!(r.take(3), Err(Error::Truncated("test"))));
        assert_eq!(r.take(1).unwrap(), &[9]);
        assert!(r.clone().finish().is_err());
        assert_eq!(r.rest(), &[9]);
        assert!(r.finish().is_ok());
    }

    #[test]
    fn empty_reader_errors() {
        let mut r = Reader::new(&[], "empty");
        assert!(r.u8().is_err());
        assert!(r.array::<1>().is_err());
        assert!(r.take(usize::MAX).is_err());
        assert!(r.take(0).unwrap().is_empty());
    }
}
