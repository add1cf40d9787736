"""The API as the stubs describe it: the names, the aliases, classes that cannot be subclassed."""

import typing

import pytest

import sixpgp


def test_type_aliases_exist_at_run_time(alice):
    assert set(typing.get_args(sixpgp.Data)) == {bytes, bytearray, memoryview, str}
    assert bytearray in typing.get_args(sixpgp.Password)
    assert sixpgp.Cert in typing.get_args(sixpgp.Recipients) and type(None) in typing.get_args(sixpgp.Keys)
    assert set(typing.get_args(sixpgp.Password)) < set(typing.get_args(sixpgp.Passwords))


def test_all_names_the_public_api():
    assert set(sixpgp.__all__) == {n for n in dir(sixpgp) if not n.startswith("_") and n not in ("sixpgp", "dataframe")} | {
        "__version__"
    }
    for name in ("Decryptor", "NoGoodSignature", "Data", "decrypt_stream", "PROFILES"):
        assert name in sixpgp.__all__


@pytest.mark.parametrize("name", ["Key", "Cert", "KeyInfo", "Decryptor", "Decrypted", "Verification"])
def test_classes_are_final(name):
    with pytest.raises(TypeError):
        type("Sub", (getattr(sixpgp, name),), {})
