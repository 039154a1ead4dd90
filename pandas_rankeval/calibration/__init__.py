"""Calibration by the values of a field: PCOC, log loss, NE and ECE per value, and the
field-level relative calibration error as one number (:func:`calibration_by`)."""

from .by_field import CalibrationByTable, calibration_by, field_rce

__all__ = ["CalibrationByTable", "calibration_by", "field_rce"]
