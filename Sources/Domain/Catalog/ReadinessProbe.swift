/// Something that can tell whether the database answers (`GET /ready`).
public protocol ReadinessProbe: Sendable {
    /// Throws when the dependency cannot serve requests.
    func check() async throws
}
