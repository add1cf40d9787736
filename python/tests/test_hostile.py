"""Hostile input: every file of the fuzz corpus through every entry point raises a
sixpgp.Error subclass or succeeds; never another exception, a panic or a crash."""

import pathlib

import pytest

import sixpgp
from conftest import REPO

CORPUS = REPO / "fuzz" / "corpus"


def corpus_files():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file())


FILES = corpus_files()


def _only_sixpgp_errors(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except sixpgp.Error:
        pass


@pytest.fixture(scope="module")
def keys():
    return [sixpgp.Key.generate("Fuzz <fuzz@example.org>", p) for p in sorted(sixpgp.PROFILES)]


@pytest.mark.skipif(not FILES, reason="no fuzz corpus (fuzz/corpus in the repository)")
def test_corpus_raises_only_sixpgp_errors(keys):
    certs = [k.cert for k in keys]
    decryptor = sixpgp.Decryptor(keys, untrusted=True)
    batch = []
    for path in FILES:
        data = path.read_bytes()
        batch.append(data)
        # No password: a corpus SKESK or locked key could ask for an expensive derivation.
        _only_sixpgp_errors(sixpgp.decrypt, data, keys, verify=certs, untrusted=True)
        for untrusted in (False, True):
            _only_sixpgp_errors(sixpgp.Cert.from_bytes, data, untrusted=untrusted)
            _only_sixpgp_errors(sixpgp.Cert.read_all, data, untrusted=untrusted)
            _only_sixpgp_errors(sixpgp.Key.from_bytes, data, untrusted=untrusted)
            _only_sixpgp_errors(sixpgp.verify, b"data", data, certs, untrusted=untrusted)
            _only_sixpgp_errors(sixpgp.verify, data, data, certs, untrusted=untrusted)
        _only_sixpgp_errors(decryptor.decrypt, data)
        for cut in (1, len(data) // 2):
            _only_sixpgp_errors(sixpgp.decrypt, data[:cut], keys, untrusted=True)
    results = decryptor.decrypt_all(batch)
    assert len(results) == len(batch)
    assert all(isinstance(r, (bytes, sixpgp.Error)) for r in results)
    assert len(FILES) > 100


def test_invalid_utf8_text_and_odd_types(keys):
    with pytest.raises(UnicodeEncodeError):
        sixpgp.decrypt("\udcff not encodable", keys)
    with pytest.raises(TypeError):
        sixpgp.decrypt(None, keys)
    with pytest.raises(TypeError):
        sixpgp.Decryptor(keys).decrypt_all([b"x", 3])
