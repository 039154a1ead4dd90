from __future__ import annotations
def launch_agreement(*a, **k): raise NotImplementedError
