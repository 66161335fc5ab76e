import Foundation

/// The operators' console (`/admin`) and its audit log.
extension Configuration {
    static let consoleVariables: [Variable] = [
        .boolean("ADMIN_CONSOLE", \.consoleEnabled, "Serve the operators' console at /admin (true/false)."),
        .optional("ADMIN_CONSOLE_HOST", \.consoleHost, default: "(the API's listener)",
                  "Serve /admin on a listener of its own at this address (with ADMIN_CONSOLE_PORT), not on the API's port.", problem: address),
        Variable("ADMIN_CONSOLE_PORT", "(the API's listener)", "Port of the console's own listener (with ADMIN_CONSOLE_HOST; 0: any free one).") { reader, configuration in
            configuration.consolePort = try reader.integer("ADMIN_CONSOLE_PORT", in: 0...65535)
        },
        .integer("ADMIN_CONSOLE_IDLE_MINUTES", in: 1...1440, \.consoleIdleMinutes, "Minutes a console session lives unused."),
        .integer("AUDIT_RETENTION_DAYS", in: 1...36_500, \.auditRetentionDays, "Days the audit log of admin actions is kept."),
    ]
}
