package harmony

// MaxDeclarationBytesForTest is maxDeclarationBytes, for the external
// tests of the limits.
const MaxDeclarationBytesForTest = maxDeclarationBytes
