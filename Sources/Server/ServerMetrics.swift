import App
import Foundation
import HTTPServer
import Persistence
import PostgresDriver

/// The gauges `serve` adds to the application's metrics: the database pool, the process
/// and the build. Read when scraped; nothing here runs per request.
enum ServerMetrics {
    /// The version in `market09_build_info` (the API's, as in openapi.yaml).
    static let version = "0.1.0"

    /// The media disk's free bytes and the floor uploads keep (UPLOAD_MIN_FREE_BYTES): the
    /// alert rules' disk floor. One `statvfs` per scrape.
    static func registerDisk(on metrics: Metrics, media: MediaSettings) {
        metrics.addCollector { text in
            var info = statvfs()
            var path = media.directory
            while statvfs(path, &info) != 0 {
                let parent = (path as NSString).deletingLastPathComponent
                guard !parent.isEmpty, parent != path else { return }
                path = parent
            }
            text.gauge("market09_media_disk_free_bytes", help: "Free bytes of the disk holding MEDIA_DIR.", Double(info.f_bavail) * Double(info.f_frsize))
            text.gauge("market09_media_disk_floor_bytes", help: "Free bytes uploads keep (UPLOAD_MIN_FREE_BYTES): below it they are refused.",
                       Double(media.limits.minimumFreeBytes))
        }
    }

    static func register(on metrics: Metrics, pool: PostgresPool, startedAt: Date) {
        metrics.addCollector { text in
            let statistics = pool.statistics()
            let totals = statistics.totals
            text.gauge("market09_db_pool_connections", help: "Connections (and threads) of the database pool.", Double(statistics.size))
            text.gauge("market09_db_pool_busy", help: "Pool threads running a job (a query, a transaction or a request task's step).", Double(statistics.busy))
            text.gauge("market09_db_pool_queued", help: "Jobs waiting for a pool thread.", Double(statistics.queued))
            text.family("market09_db_pool_wait_seconds", type: "histogram", help: "Time jobs waited for a pool thread.")
            var cumulative = 0
            for (bound, count) in zip(PostgresPool.Statistics.Totals.waitBuckets, totals.waits) {
                cumulative += count
                text.sample("market09_db_pool_wait_seconds_bucket", ["le": String(bound)], Double(cumulative))
            }
            text.sample("market09_db_pool_wait_seconds_bucket", ["le": "+Inf"], Double(totals.waitCount))
            text.sample("market09_db_pool_wait_seconds_sum", [:], totals.waitSeconds)
            text.sample("market09_db_pool_wait_seconds_count", [:], Double(totals.waitCount))
            text.family("market09_db_statement_timeouts_total", type: "counter", help: "Statements cancelled by statement_timeout.")
            text.sample("market09_db_statement_timeouts_total", [:], Double(totals.statementTimeouts))
            text.family("market09_db_pool_queue_timeouts_total", type: "counter", help: "Jobs refused after waiting too long for a pool thread (503 database_busy).")
            text.sample("market09_db_pool_queue_timeouts_total", [:], Double(totals.queueTimeouts))
            text.family("market09_db_pool_clients_gone_total", type: "counter", help: "Reads not run because their client left while they waited (at least 50 ms) for a pool thread.")
            text.sample("market09_db_pool_clients_gone_total", [:], Double(totals.clientsGone))
            text.family("market09_db_pipelines_total", type: "counter", help: "Pipelines of two or more reads sent together on one connection.")
            text.sample("market09_db_pipelines_total", [:], Double(totals.pipelines))
            text.family("market09_db_pipelined_reads_total", type: "counter", help: "Reads sent in those pipelines.")
            text.sample("market09_db_pipelined_reads_total", [:], Double(totals.pipelinedReads))
        }
        metrics.addCollector { text in
            text.gauge("market09_build_info", help: "The running build (always 1).", 1, ["version": version])
            text.gauge("process_start_time_seconds", help: "Start time of the process since the Unix epoch.", startedAt.timeIntervalSince1970)
            if let usage = ProcessUsage.read() {
                text.family("process_cpu_seconds_total", type: "counter", help: "User and system CPU time spent.")
                text.sample("process_cpu_seconds_total", [:], usage.cpuSeconds)
                text.gauge("process_resident_memory_bytes", help: "Resident memory size.", usage.residentBytes)
            }
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
            text.gauge("process_open_fds", help: "Open file descriptors.", Double(descriptors))
        }
    }
}

/// CPU time and resident memory from `/proc/self/stat` (fields 14, 15 and 24).
private struct ProcessUsage {
    let cpuSeconds: Double
    let residentBytes: Double

    static func read() -> ProcessUsage? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm)", fields start at 3 (state); the name may hold spaces.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 21, let user = Double(fields[11]), let system = Double(fields[12]), let pages = Double(fields[21]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ProcessUsage(cpuSeconds: (user + system) / ticks, residentBytes: pages * Double(sysconf(Int32(_SC_PAGESIZE))))
    }
}
