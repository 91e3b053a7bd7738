// Placeholder so the test target builds; replaced by its first real test file.
