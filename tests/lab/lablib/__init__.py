"""Host side of the QEMU NVMe lab (tests/lab/lab.py)."""
