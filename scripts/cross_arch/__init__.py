"""Vectorized<T>::cbrt() on other CPU architectures: cross builds of one test program, run under qemu-user."""
