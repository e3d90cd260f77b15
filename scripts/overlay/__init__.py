"""The overlay build's Python helpers; CMakeLists.txt, templates, src/ and the loader beside them."""
