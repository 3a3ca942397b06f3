"""The retransmission timeout from measured round trips (Klipper's and RFC 6298's rules)."""

from __future__ import annotations

import pytest

from table_controller.devices.retransmit import RoundTrip


def test_before_any_sample_the_initial_timeout_within_bounds() -> None:
    assert RoundTrip(0.025, 0.25).rto == 0.25
    assert RoundTrip(0.025, 1.0, initial_rto=0.001).rto == 0.025


def test_first_sample_then_smoothing() -> None:
    rt = RoundTrip(0.001, 5.0)
    rt.sample(0.010)
    assert rt.srtt == pytest.approx(0.010)
    assert rt.rttvar == pytest.approx(0.005)
    assert rt.rto == pytest.approx(0.010 + 4 * 0.005)
    rt.sample(0.020)
    assert rt.rttvar == pytest.approx(0.75 * 0.005 + 0.25 * 0.010)
    assert rt.srtt == pytest.approx(0.875 * 0.010 + 0.125 * 0.020)


def test_a_steady_fast_link_sits_at_the_minimum() -> None:
    rt = RoundTrip(0.025, 0.25)
    for _ in range(50):
        rt.sample(0.0003)
    assert rt.rto == 0.025


def test_backoff_doubles_to_the_maximum_and_resets() -> None:
    rt = RoundTrip(0.025, 0.25)
    rt.sample(0.0003)
    rtos = []
    for _ in range(6):
        rt.backoff()
        rtos.append(rt.rto)
    assert rtos == pytest.approx([0.05, 0.1, 0.2, 0.25, 0.25, 0.25])
    rt.reset_backoff()
    assert rt.rto == rt.base_rto == 0.025
