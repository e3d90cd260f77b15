"""The prepared GPU check (scripts/gpu_check.sh): its wheel bundle, checks, benchmark and report."""
