// A test of the whole application sees the lower test helpers through this module: the
// transport's (a raw HTTP client, captured logs) and the database's (throwaway databases).
// A database test links DatabaseTestSupport alone, a transport test HTTPTestSupport alone.
@_exported import DatabaseTestSupport
@_exported import HTTPTestSupport
