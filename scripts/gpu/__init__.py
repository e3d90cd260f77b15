"""The prepared GPU check (scripts/gpu/check.sh): its wheel bundle, checks, benchmark and report."""
