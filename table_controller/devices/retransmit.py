"""When to send a message again: the retransmission timeout from measured round trips.

Klipper's host does this for its microcontrollers (klippy/chelper/serialqueue.c), after
RFC 6298: a smoothed round trip and its mean deviation, the timeout their sum with four
deviations, kept within bounds, doubled on every timeout. Karn's rule: a message that was
sent twice gives no sample, since its acknowledgement may answer either copy.
"""

from __future__ import annotations


class RoundTrip:
    def __init__(self, min_rto: float, max_rto: float, initial_rto: float = 0.25) -> None:
        self.min_rto = min_rto
        self.max_rto = max_rto
        self.srtt: float | None = None  # smoothed round trip, seconds
        self.rttvar = 0.0
        self._base = self._bound(initial_rto)
        self.rto = self._base
        self.samples = 0

    def _bound(self, rto: float) -> float:
        return min(self.max_rto, max(self.min_rto, rto))

    @property
    def base_rto(self) -> float:
        """The timeout before any backing off."""
        return self._base

    def sample(self, rtt: float) -> None:
        """A round trip measured on a message sent once."""
        self.samples += 1
        if self.srtt is None:
            self.srtt = rtt
            self.rttvar = rtt / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt
        self._base = self._bound(self.srtt + max(4 * self.rttvar, 0.001))
        self.rto = self._base

    def backoff(self) -> None:
        """A timeout expired: wait twice as long for the next copy."""
        self.rto = min(self.max_rto, self.rto * 2)

    def reset_backoff(self) -> None:
        """The peer is heard again: back to the measured timeout."""
        self.rto = self._base
