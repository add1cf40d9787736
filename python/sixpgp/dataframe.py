"""Arrow columns through sixpgp's batch calls, for data-frame engines (needs pyarrow).

The functions take and return pyarrow arrays and record batches; each batch crosses into Rust
as its buffers (no Python object per value) and is decrypted or encrypted on the library's
threads with the GIL released.

    decrypt_array(decryptor, array)  -> (plaintext, error)    binary column in, two columns out
    encrypt_array(encryptor, array)  -> messages
    decrypt_batches(batches, decryptor, column)               record batches in and out
    encrypt_batches(batches, encryptor, column)

Spark (`DataFrame.mapInArrow`):

    schema = dataframe.decrypt_schema(df.schema, "message")   # pyspark.sql.types.StructType
    df.mapInArrow(lambda it: dataframe.decrypt_batches(it, decryptor, "message"), schema)

Dask (`DataFrame.map_partitions`, pandas partitions with a pyarrow binary column):

    ddf.map_partitions(dataframe.decrypt_pandas, decryptor, "message",
                       meta=dataframe.decrypt_pandas(ddf._meta, decryptor, "message"))

A failed message gives a null plaintext and its error, "ExceptionClass: message" (for
example "DecryptionFailed: ..."); a null message gives nulls in both.
"""

import pyarrow as pa

from . import sixpgp as _ext

__all__ = [
    "decrypt_array",
    "decrypt_batches",
    "decrypt_pandas",
    "decrypt_schema",
    "encrypt_array",
    "encrypt_batches",
    "encrypt_pandas",
    "encrypt_schema",
]


def _binary(array):
    """`array` (an Array or ChunkedArray of binary, large_binary or string) as one binary or
    large_binary Array."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if pa.types.is_large_binary(array.type) or pa.types.is_binary(array.type):
        return array
    if pa.types.is_large_string(array.type):
        return array.cast(pa.large_binary())
    if pa.types.is_string(array.type):
        return array.cast(pa.binary())
    raise TypeError(f"expected a binary or string column, not {array.type}")


def _bytes(buffer):
    return b"" if buffer is None else buffer.to_pybytes()


def _parts(array):
    validity, offsets, data = array.buffers()
    wide = pa.types.is_large_binary(array.type)
    return (None if validity is None else validity.to_pybytes(), _bytes(offsets), _bytes(data),
            array.offset, len(array), wide)


def _array(type_, length, buffers):
    validity, offsets, data = buffers
    return pa.Array.from_buffers(
        type_, length,
        [None if validity is None else pa.py_buffer(validity), pa.py_buffer(offsets), pa.py_buffer(data)])


def decrypt_array(decryptor, array):
    """Decrypts every message of a binary (or string) array with `decryptor` (a
    `sixpgp.Decryptor`). Returns `(plaintext, error)`: a binary array of the same offset width
    (null where the message failed or was null) and a string array (null where it decrypted)."""
    array = _binary(array)
    plain, error = _ext._decrypt_arrow(decryptor, _parts(array))
    return _array(array.type, len(array), plain), _array(pa.string(), len(array), error)


def encrypt_array(encryptor, array):
    """Encrypts every value of a binary (or string) array with `encryptor` (a
    `sixpgp.Encryptor`), each as a message of its own. Returns a binary array of the same
    offset width (null where the value was null)."""
    array = _binary(array)
    return _array(array.type, len(array), _ext._encrypt_arrow(encryptor, _parts(array)))


def _replace(batch, column, new_columns):
    """`batch` without `column`, with `new_columns` (name → array) appended."""
    names = [n for n in batch.schema.names if n != column]
    arrays = [batch.column(n) for n in names]
    return pa.RecordBatch.from_arrays(arrays + list(new_columns.values()), names + list(new_columns))


def decrypt_batches(batches, decryptor, column, plaintext="plaintext", error="error"):
    """For each record batch of `batches`, the batch with `column` decrypted: `column` replaced
    by the `plaintext` and `error` columns (at the end)."""
    for batch in batches:
        plain, failed = decrypt_array(decryptor, batch.column(column))
        yield _replace(batch, column, {plaintext: plain, error: failed})


def encrypt_batches(batches, encryptor, column, message="message"):
    """For each record batch of `batches`, the batch with `column` encrypted: `column` replaced
    by the `message` column (at the end)."""
    for batch in batches:
        yield _replace(batch, column, {message: encrypt_array(encryptor, batch.column(column))})


def decrypt_schema(schema, column, plaintext="plaintext", error="error"):
    """The Spark schema (`StructType`) of `decrypt_batches`' output for input schema `schema`."""
    from pyspark.sql.types import BinaryType, StringType, StructField, StructType

    kept = [f for f in schema.fields if f.name != column]
    return StructType(kept + [StructField(plaintext, BinaryType()), StructField(error, StringType())])


def encrypt_schema(schema, column, message="message"):
    """The Spark schema (`StructType`) of `encrypt_batches`' output for input schema `schema`."""
    from pyspark.sql.types import BinaryType, StructField, StructType

    return StructType([f for f in schema.fields if f.name != column] + [StructField(message, BinaryType())])


def _series(pd, array, index):
    return pd.Series(pd.arrays.ArrowExtensionArray(array), index=index)


def decrypt_pandas(frame, decryptor, column, plaintext="plaintext", error="error"):
    """A pandas DataFrame (a Dask partition) with `column` decrypted: `column` replaced by the
    `plaintext` (binary) and `error` (string) columns, both Arrow-backed."""
    import pandas as pd

    plain, failed = decrypt_array(decryptor, pa.array(frame[column]))
    out = frame.drop(columns=[column])
    out[plaintext] = _series(pd, plain, frame.index)
    out[error] = _series(pd, failed, frame.index)
    return out


def encrypt_pandas(frame, encryptor, column, message="message"):
    """A pandas DataFrame (a Dask partition) with `column` encrypted: `column` replaced by the
    `message` column (binary, Arrow-backed)."""
    import pandas as pd

    out = frame.drop(columns=[column])
    out[message] = _series(pd, encrypt_array(encryptor, pa.array(frame[column])), frame.index)
    return out
