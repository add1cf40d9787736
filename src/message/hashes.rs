//! The running hashes of the data a message's signatures sign (RFC 9580 §5.2.4), shared by
//! detached, cleartext and inline verification and by decryption.
//!
//! Every hash reads all of the data again, so the cost of a message is its length times the
//! number of hashes. Signatures that would start the same hash (same algorithm, salt and mode:
//! copies of one signature) share one, and at most [`MAX_HASHES`] distinct hashes run; the
//! signatures beyond are not checked ([`UnverifiableReason::TooManySignatures`]). A flood of
//! signatures then costs what sixteen cost, whatever `Limits::max_signatures` allows.

use std::io;

use crate::error::Result;
use crate::message::hash_pipe::{HashPipe, Hashing};
use crate::message::verdict::{UnverifiableReason, Verification};
use crate::signature::{DataHasher, SignatureMode};
use crate::types::HashAlgorithm;

/// Most distinct hashes run over one message's data.
pub(super) const MAX_HASHES: usize = 16;

/// Which of a [`DataHashes`]'s hashes a signature needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct HashSlot(usize);

/// What makes two signatures' hashes the same hash.
#[derive(Debug, PartialEq, Eq)]
struct HashKey {
    algorithm: HashAlgorithm,
    salt: Vec<u8>,
    mode: SignatureMode,
}

#[derive(Debug)]
enum State {
    /// Before the data: hashes are started here.
    Starting(Vec<DataHasher>),
    /// The data is being hashed.
    Hashing(HashPipe),
    /// Every octet is hashed; `None` if the hashing thread was lost.
    Finished(Option<Vec<DataHasher>>),
}

/// The distinct running hashes of one message's signatures (see the module docs).
#[derive(Debug)]
pub(super) struct DataHashes {
    keys: Vec<HashKey>,
    state: State,
    hashing: Hashing,
}

impl DataHashes {
    /// No hashes yet; `hashing` says where the data is hashed once it comes.
    pub(super) fn new(hashing: Hashing) -> Self {
        Self { keys: Vec::new(), state: State::Starting(Vec::new()), hashing }
    }

    /// The hash a signature of `algorithm`, `salt` and `mode` needs: the running one if
    /// another signature needs the same, else a new one, if fewer than [`MAX_HASHES`] run.
    /// Hashes are started before the data, so that each one sees all of it.
    ///
    /// # Errors
    /// The verdict on the signature if its hash is not run: `TooManySignatures` past
    /// [`MAX_HASHES`] (or once the data has started), `UnsupportedHash` for an algorithm this
    /// crate does not implement.
    pub(super) fn slot(
        &mut self,
        algorithm: HashAlgorithm,
        salt: &[u8],
        mode: SignatureMode,
    ) -> std::result::Result<HashSlot, Verification> {
        let key = HashKey { algorithm, salt: salt.to_vec(), mode };
        if let Some(i) = self.keys.iter().position(|k| *k == key) {
            return Ok(HashSlot(i));
        }
        let State::Starting(hashers) = &mut self.state else {
            return Err(Verification::unverifiable(UnverifiableReason::TooManySignatures));
        };
        if hashers.len() >= MAX_HASHES {
            return Err(Verification::unverifiable(UnverifiableReason::TooManySignatures));
        }
        let hasher = DataHasher::new(algorithm, salt, mode)
            .map_err(|_| Verification::unverifiable(UnverifiableReason::UnsupportedHash))?;
        hashers.push(hasher);
        self.keys.push(key);
        Ok(HashSlot(self.keys.len().saturating_sub(1)))
    }

    /// How many distinct hashes run over the data.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Hashes more data, in order.
    ///
    /// # Errors
    /// An I/O error if the hashing thread has stopped (and from then on), or after
    /// [`finish`](Self::finish).
    pub(super) fn update(&mut self, data: &[u8]) -> io::Result<()> {
        if let State::Starting(hashers) = &mut self.state {
            self.state = State::Hashing(HashPipe::new(std::mem::take(hashers), self.hashing));
        }
        match &mut self.state {
            State::Hashing(pipe) => pipe.update(data),
            State::Starting(_) | State::Finished(_) => {
                Err(io::Error::other("signature hashes: data after the end"))
            }
        }
    }

    /// Ends the data.
    ///
    /// # Errors
    /// `Io` if the hashing thread was lost; the hashes are then gone, and
    /// [`hasher`](Self::hasher) gives none.
    pub(super) fn finish(&mut self) -> Result<()> {
        let state = std::mem::replace(&mut self.state, State::Finished(None));
        let (state, result) = match state {
            State::Starting(hashers) => (State::Finished(Some(hashers)), Ok(())),
            State::Hashing(pipe) => match pipe.finish() {
                Ok(hashers) => (State::Finished(Some(hashers)), Ok(())),
                Err(e) => (State::Finished(None), Err(e)),
            },
            finished @ State::Finished(_) => (finished, Ok(())),
        };
        self.state = state;
        result
    }

    /// The hash of `slot` over all of the data, once [`finish`](Self::finish) succeeded; a copy,
    /// since signatures share it. `None` before, or if the hashing thread was lost.
    pub(super) fn hasher(&self, slot: HashSlot) -> Option<DataHasher> {
        match &self.state {
            State::Finished(Some(hashers)) => hashers.get(slot.0).cloned(),
            State::Starting(_) | State::Hashing(_) | State::Finished(None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(hashes: &DataHashes, slot: HashSlot) -> Vec<u8> {
        hashes.hasher(slot).unwrap().into_hasher().finish()
    }

    #[test]
    fn same_parameters_share_a_hash_and_distinct_ones_are_capped() {
        let mut hashes = DataHashes::new(Hashing::Inline);
        let first = hashes.slot(HashAlgorithm::Sha256, &[1; 16], SignatureMode::Binary).unwrap();
        for _ in 0..1000 {
            assert_eq!(hashes.slot(HashAlgorithm::Sha256, &[1; 16], SignatureMode::Binary), Ok(first));
        }
        assert_eq!(hashes.len(), 1);
        // Another salt, algorithm or mode is another hash.
        let text = hashes.slot(HashAlgorithm::Sha256, &[1; 16], SignatureMode::Text).unwrap();
        let sha512 = hashes.slot(HashAlgorithm::Sha512, &[1; 32], SignatureMode::Binary).unwrap();
        assert_eq!(hashes.len(), 3);
        for salt in 0..100u8 {
            let _ = hashes.slot(HashAlgorithm::Sha256, &[salt; 16], SignatureMode::Binary);
        }
        assert_eq!(hashes.len(), MAX_HASHES);
        let refused = hashes.slot(HashAlgorithm::Sha256, &[200; 16], SignatureMode::Binary).unwrap_err();
        assert_eq!(
            refused.status(),
            Verification::unverifiable(UnverifiableReason::TooManySignatures).status()
        );
        // A running hash is still shared past the cap.
        assert_eq!(hashes.slot(HashAlgorithm::Sha256, &[1; 16], SignatureMode::Binary), Ok(first));

        hashes.update(b"line\n").unwrap();
        // No hash starts once the data has.
        assert!(hashes.slot(HashAlgorithm::Sha384, &[], SignatureMode::Binary).is_err());
        hashes.finish().unwrap();
        let mut alone = DataHasher::new(HashAlgorithm::Sha256, &[1; 16], SignatureMode::Text).unwrap();
        alone.update(b"line\n");
        assert_eq!(digest(&hashes, text), alone.into_hasher().finish());
        assert_ne!(digest(&hashes, first), digest(&hashes, text));
        assert_eq!(digest(&hashes, first), digest(&hashes, first));
        assert!(hashes.hasher(sha512).is_some());
    }
}
