"""Reference solution of ps3, frequencies and extension (instructors only)."""

from __future__ import annotations

import numpy as np

STUDENT_ID = None  # the reference answers every sheet


def inv_freq(dim: int, base: float) -> np.ndarray:
    """theta_i = base^(-2i/dim) for i = 0 ... dim/2 - 1."""
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def wavelengths(dim: int, base: float) -> np.ndarray:
    """The positions plane i takes for one full turn: 2 pi / theta_i."""
    return 2 * np.pi / inv_freq(dim, base)


def pi_inv_freq(dim: int, base: float, factor: float) -> np.ndarray:
    """Linear position interpolation: every theta_i divided by factor."""
    return inv_freq(dim, base) / factor


def ntk_base(base: float, dim: int, factor: float) -> float:
    """The base whose slowest plane turns factor times slower, the fastest
    unchanged: base * factor^(dim / (dim - 2))."""
    return base * factor ** (dim / (dim - 2))


def llama3_inv_freq(
    dim: int,
    base: float,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_max: int,
) -> np.ndarray:
    """Llama 3.1's bands: short wavelengths kept, long ones divided by
    factor, a linear blend in between."""
    theta = inv_freq(dim, base)
    wavelength = 2 * np.pi / theta
    low_wavelength = original_max / low_freq_factor
    high_wavelength = original_max / high_freq_factor
    smooth = (original_max / wavelength - low_freq_factor) / (
        high_freq_factor - low_freq_factor
    )
    blended = (1 - smooth) * theta / factor + smooth * theta
    out = np.where(wavelength > low_wavelength, theta / factor, blended)
    return np.where(wavelength < high_wavelength, theta, out)


def ANSWERS(sheet) -> dict[str, float]:
    """The numbers of a sheet, computed (a student types them in)."""
    lengths = wavelengths(sheet.dim, sheet.base)
    scaled = llama3_inv_freq(
        sheet.dim,
        sheet.base,
        sheet.factor,
        sheet.low_freq_factor,
        sheet.high_freq_factor,
        sheet.train_length,
    )
    return {
        "longest_wavelength": float(lengths.max()),
        "planes_full_turn": int(np.sum(lengths <= sheet.train_length)),
        "ntk_base": float(ntk_base(sheet.base, sheet.dim, sheet.factor)),
        "llama3_kept": int(np.sum(scaled == inv_freq(sheet.dim, sheet.base))),
    }
