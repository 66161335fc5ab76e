// A database test sees the transport's test helpers (a raw HTTP client, captured logs)
// through this module as before; a transport test links only HTTPTestSupport.
@_exported import HTTPTestSupport
