//! Entry points for fuzz targets and corpus replay. Not part of the stable API.
//!
//! Each function parses hostile input and must return (never panic, hang, or allocate past
//! [`Limits`](crate::Limits)).
