"""Arrow columns through the batch calls (sixpgp.dataframe) and sixpgp.Encryptor."""

import pickle

import pytest

import sixpgp

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
from sixpgp import dataframe  # noqa: E402


def test_encryptor_batch_round_trips_and_pickles(alice, bob):
    encryptor = sixpgp.Encryptor([alice, bob.cert], threads=2)
    values = [bytes([i]) * i for i in range(40)] + ["text"]
    messages = pickle.loads(pickle.dumps(encryptor)).encrypt_all(values)
    assert len(messages) == len(values) and len(set(messages)) == len(values)
    for key in (alice, bob):
        assert sixpgp.Decryptor(key).decrypt_all(messages) == [bytes([i]) * i for i in range(40)] + [b"text"]
    armored = sixpgp.Encryptor(alice, passwords="pw", armor=True).encrypt_all([b"x"])
    assert armored[0].startswith(b"-----BEGIN PGP MESSAGE-----")
    assert sixpgp.decrypt(armored[0], passwords="pw").data == b"x"


def test_encryptor_refuses_up_front():
    with pytest.raises(sixpgp.InvalidArgument):
        sixpgp.Encryptor()
    with pytest.raises(TypeError):
        sixpgp.Encryptor(42)


@pytest.mark.parametrize("type_", [pa.binary(), pa.large_binary()])
def test_column_round_trip_keeps_nulls_order_and_offset_width(alice, type_):
    values = pa.array([b"first", None, b"", b"x" * 1000, b"last"], type_)
    messages = dataframe.encrypt_array(sixpgp.Encryptor(alice), values)
    assert messages.type == type_ and messages.null_count == 1 and messages[1].as_py() is None
    plaintext, error = dataframe.decrypt_array(sixpgp.Decryptor(alice), messages)
    assert plaintext.type == type_ and error.type == pa.string()
    assert plaintext.to_pylist() == values.to_pylist()
    assert error.to_pylist() == [None] * 5


def test_failures_become_error_values_not_exceptions(alice, bob):
    good = sixpgp.encrypt(b"good", alice, armor=False)
    for_bob = sixpgp.encrypt(b"bob's", bob, armor=False)
    column = pa.chunked_array([[good, b"garbage"], [good[:-5], for_bob, None]], pa.binary())
    plaintext, error = dataframe.decrypt_array(sixpgp.Decryptor(alice), column)
    assert plaintext.to_pylist() == [b"good", None, None, None, None]
    errors = error.to_pylist()
    assert errors[0] is None and errors[4] is None
    assert errors[1].startswith("Malformed: ")
    assert errors[2].split(":")[0] in ("DecryptionFailed", "Malformed")
    assert errors[3].startswith("NoDecryptionKey: ")


def test_sliced_arrays_and_string_columns(alice):
    messages = sixpgp.Encryptor(alice, armor=True).encrypt_all([b"a", b"b", b"c", b"d"])
    column = pa.array([m.decode() for m in messages], pa.string()).slice(1, 2)
    plaintext, _ = dataframe.decrypt_array(sixpgp.Decryptor(alice), column)
    assert plaintext.to_pylist() == [b"b", b"c"]
    with pytest.raises(TypeError):
        dataframe.decrypt_array(sixpgp.Decryptor(alice), pa.array([1, 2]))


def test_signed_column_is_verified_per_message(alice, bob):
    values = pa.array([b"a", None, b"b"], pa.binary())
    messages = dataframe.encrypt_array(sixpgp.Encryptor(alice, signer=bob), values)
    plaintext, error = dataframe.decrypt_array(
        sixpgp.Decryptor(alice, verify=bob.cert, require_signature=True), messages)
    assert plaintext.to_pylist() == [b"a", None, b"b"] and error.null_count == 3
    plaintext, error = dataframe.decrypt_array(
        sixpgp.Decryptor(alice, verify=alice.cert, require_signature=True), messages)
    assert plaintext.null_count == 3
    assert [e and e.split(":")[0] for e in error.to_pylist()] == ["NoGoodSignature", None, "NoGoodSignature"]


def test_damaged_buffers_are_refused(alice):
    offsets = pa.py_buffer(pa.array([0, 10, 5], pa.int32()).buffers()[1])
    broken = pa.Array.from_buffers(pa.binary(), 2, [None, offsets, pa.py_buffer(b"x" * 10)])
    with pytest.raises(ValueError):
        dataframe.decrypt_array(sixpgp.Decryptor(alice), broken)


def test_record_batches_and_pandas_frames(alice):
    pd = pytest.importorskip("pandas")
    values = [b"v%d" % i for i in range(10)]
    batch = pa.RecordBatch.from_arrays([pa.array(range(10)), pa.array(values, pa.binary())], ["id", "value"])
    [encrypted] = dataframe.encrypt_batches([batch], sixpgp.Encryptor(alice), "value")
    assert encrypted.schema.names == ["id", "message"]
    [decrypted] = dataframe.decrypt_batches([encrypted], sixpgp.Decryptor(alice), "message")
    assert decrypted.schema.names == ["id", "plaintext", "error"]
    assert decrypted.column("plaintext").to_pylist() == values

    frame = pd.DataFrame({"id": range(10), "value": pd.array(values, dtype=pd.ArrowDtype(pa.binary()))})
    out = dataframe.decrypt_pandas(dataframe.encrypt_pandas(frame, sixpgp.Encryptor(alice), "value"),
                                   sixpgp.Decryptor(alice), "message")
    assert list(out.columns) == ["id", "plaintext", "error"]
    assert out["plaintext"].tolist() == values and out["error"].isna().all()


def test_dask_example_encrypts_a_column(alice, tmp_path):
    """The encrypt mode of the Dask example on a LocalCluster: Parquet values in, messages out
    that decrypt to them (the decrypt modes run against real clusters in test_cluster.py)."""
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    import subprocess
    import sys

    import pyarrow.parquet as pq

    from conftest import PYTHON_DIR

    values = [b"value %d" % i for i in range(500)]
    (tmp_path / "in").mkdir()
    pq.write_table(pa.table({"id": range(500), "value": pa.array(values, pa.binary())}),
                   tmp_path / "in" / "part.parquet")
    (tmp_path / "cert").write_bytes(bytes(alice.cert))
    out = subprocess.run([sys.executable, str(PYTHON_DIR / "examples" / "dask_dataframe.py"), "encrypt",
                          str(tmp_path / "in"), str(tmp_path / "cert"), str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "500 values encrypted" in out.stdout
    table = pq.read_table(tmp_path / "out").sort_by("id")
    assert "message" in table.column_names and "value" not in table.column_names
    plaintext, error = dataframe.decrypt_array(sixpgp.Decryptor(alice), table.column("message"))
    assert plaintext.to_pylist() == values and error.null_count == len(values)
