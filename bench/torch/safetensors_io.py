"""Minimal safetensors reader and writer for the test and benchmark scripts (the
`safetensors` package is not a Debian package). Format: 8-byte little-endian header
length, JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, raw data."""
import json
import struct

import torch

DTYPES = {"F64": torch.float64, "F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16,
          "I64": torch.int64, "I32": torch.int32}
NAMES = {v: k for k, v in DTYPES.items()}


def save(path, tensors, metadata=None):
    """Writes an ordered dict of tensors (and string metadata) to path."""
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        t = t.detach().contiguous().cpu()
        raw = t.view(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        if t.dim() == 0:
            raw = t.reshape(1).view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def load(path):
    """Returns ({name: tensor}, metadata) from a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    base, out = 8 + n, {}
    for name, e in header.items():
        a, b = e["data_offsets"]
        t = torch.frombuffer(bytearray(data[base + a:base + b]) or bytearray(1), dtype=torch.uint8)[:b - a]
        out[name] = t.view(DTYPES[e["dtype"]]).reshape(e["shape"]).clone()
    return out, meta
