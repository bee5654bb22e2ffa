"""Hand-written speed kernels (hashing, byte order and equality, segment sums): each
function's contract is at its top. A hash is a filter; bytes decide."""
