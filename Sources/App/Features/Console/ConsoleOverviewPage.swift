import Domain
import Foundation

/// The overview: where today's posts stand per category, a week of sign-ups, likes and
/// ingested posts per hour as SVG bar charts drawn here, and the queues.
enum ConsoleOverviewPage {
    /// The series of this instance's metrics an operator looks at first, as (name, value)
    /// rows: pool use, replicas' lag and health, the job lease, the last backup's age.
    static func health(_ exposition: String) -> [(String, String)] {
        let wanted: [(prefix: String, label: String, format: (Double) -> String)] = [
            ("market09_db_pool_connections", "Database pool threads", { String(Int($0)) }),
            ("market09_db_pool_busy", "Busy now", { String(Int($0)) }),
            ("market09_db_pool_queued", "Jobs waiting", { String(Int($0)) }),
            ("market09_replica_healthy", "Replica healthy", { $0 == 1 ? "yes" : "no" }),
            ("market09_replica_lag_seconds", "Replica lag", { String(format: "%.2f s", $0) }),
            ("market09_job_leader", "Runs the background jobs", { $0 == 1 ? "yes" : "no (another instance does)" }),
            ("market09_backup_age_seconds", "Last good backup", { String(format: "%.1f hours ago", $0 / 3600) }),
            ("market09_media_disk_free_bytes", "Media disk free", { megabytes(Int($0)) }),
        ]
        var rows: [(String, String)] = []
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            let name = series.prefix { $0 != "{" }
            guard let entry = wanted.first(where: { $0.prefix == name }) else { continue }
            let labels = series.dropFirst(name.count)
            rows.append((entry.label + (labels.isEmpty ? "" : " " + labels), entry.format(value)))
        }
        return rows
    }

    static func render(_ overview: ConsoleOverview, health: [(String, String)] = []) -> HTML {
        let categoryRows = overview.categories.map { category -> [HTML] in
            ["\(category.name)", "\(category.openNow)", "\(category.upcoming)", "\(category.closingSoon)"]
        }
        let keys = overview.keys.map { key -> [HTML] in
            ["\(key.name)", "\(ConsoleLayout.date(key.lastUsedAt))", "\(key.calls)"]
        }
        let charts = overview.series.map { series -> HTML in
            "<div class=\"card chart\"><h2>\(series.name) per hour, last 7 days</h2>\(chart(series))<p>\(series.counts.reduce(0, +)) in all.</p></div>"
        }
        return """
            <div class="cards">
            <div class="card"><h2>Influencer requests waiting</h2><p><a href="/admin/requests?status=processing">\(overview.pendingRequests)</a></p></div>
            <div class="card"><h2>Hidden posts</h2><p><a href="/admin/posts?hidden=1">\(overview.hiddenPosts)</a></p></div>
            <div class="card"><h2>Stored media</h2><p>\(megabytes(overview.storedMediaBytes))</p></div>
            <div class="card"><h2>Admins</h2><p>\(overview.admins)</p></div>
            </div>
            \(ConsoleLayout.table("Posts by category now", headers: ["Category", "Open now", "Upcoming", "Closing within 24 h"], rows: categoryRows))
            <div class="cards">\(charts)</div>
            \(ConsoleLayout.table("Live ingest keys", headers: ["Key", "Last used (KST)", "Calls"], rows: keys))
            \(ConsoleLayout.table("This instance", headers: ["Measure", "Now"], rows: health.map { ["\($0.0)", "\($0.1)"] }))
            <p>Every instance exports these on its metrics listener (<code>/metrics</code>); the alert rules are in <code>deploy/prometheus/</code>.
            Backups: <code>market09 backup list</code>.</p>
            """
    }

    /// Bars of `series` (168 hours), scaled to the busiest hour, with a day tick every 24.
    static func chart(_ series: HourlySeries) -> HTML {
        let width = 672, height = 120, top = max(1, series.counts.max() ?? 1)
        let bars = series.counts.enumerated().compactMap { hour, count -> HTML? in
            guard count > 0 else { return nil }
            let barHeight = max(1, count * (height - 20) / top)
            return "<rect class=\"bar\" x=\"\(hour * 4)\" y=\"\(height - 12 - barHeight)\" width=\"3\" height=\"\(barHeight)\"><title>\(count)</title></rect>"
        }
        let ticks = stride(from: 0, through: 168, by: 24).map { hour -> HTML in
            "<line class=\"axis\" x1=\"\(hour * 4)\" x2=\"\(hour * 4)\" y1=\"\(height - 12)\" y2=\"\(height - 8)\"></line>"
        }
        let label = "\(series.name) per hour over the last 7 days; busiest hour \(top)"
        return """
            <svg viewBox="0 0 \(width) \(height)" role="img" aria-label="\(label)" xmlns="http://www.w3.org/2000/svg">
            <line class="axis" x1="0" x2="\(width)" y1="\(height - 12)" y2="\(height - 12)"></line>\(ticks)\(bars)
            <text x="0" y="\(height)">7 days ago</text><text x="\(width - 24)" y="\(height)">now</text><text x="0" y="10">\(top)</text></svg>
            """
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }
}
