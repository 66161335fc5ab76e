import Foundation
import Synchronization

/// The server's metrics, served at `GET /metrics` in Prometheus' text format (0.0.4).
///
/// Events are counted as they happen, under one mutex: an answered request (by route
/// template, method and status, and its latency in a histogram), an error answer by its
/// code, a background job's pass. Gauges (in-flight requests, the pool, the revocation
/// poll's age, the process) are read by collectors when scraped. Recording a request costs
/// a lock and two dictionary updates, well under a microsecond beside the ~15 µs of
/// server CPU of the cheapest request (the bench's /health with and without metrics).
///
/// Every label value comes from a fixed set: a method the server does not serve is
/// `other`, a route is a template or `unmatched`, a status a number from 100 to 599, an
/// error code one of the server's own. Even so each family holds at most ``maxSeries``
/// series, later ones counted under `other`: 600 requests with invented 4 KB methods once
/// made 604 method labels, a 40 MB page and a 5.9 s rendering.
public final class Metrics: Sendable {
    /// The most series one family keeps (routes × methods × statuses stay far below it:
    /// ~70 routes, ~3 statuses each).
    public static let maxSeries = 1_000
    /// Request latency buckets, in seconds: the feed's pages answer in 1–30 ms, the
    /// statement timeout is 2 s.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    /// Reads gauges into the text when scraped.
    public typealias Collector = @Sendable (inout MetricsText) -> Void

    private struct RequestKey: Hashable {
        public let route: String
        public let method: String
        public let status: Int
    }

    private struct LatencyKey: Hashable {
        public let route: String
        public let method: String
    }

    private struct Histogram {
        public var buckets = [Int](repeating: 0, count: Metrics.latencyBuckets.count)
        public var sum = 0.0
        public var count = 0

        public mutating func record(bucket: Int?, seconds: Double) {
            if let bucket { buckets[bucket] += 1 }
            sum += seconds
            count += 1
        }
    }

    private struct CounterKey: Hashable {
        public let name: String
        public let labels: [String]
    }

    private struct State {
        public var requests: [RequestKey: Int] = [:]
        public var latency: [LatencyKey: Histogram] = [:]
        public var counters: [CounterKey: Int] = [:]
    }

    /// The counters an event may increment, with their help texts and label names.
    public enum Counter: String, Sendable, CaseIterable {
        case errors = "market09_http_errors_total"
        case jobRuns = "market09_job_runs_total"
        case jobFailures = "market09_job_failures_total"

        public var help: String {
            switch self {
            case .errors: "Error answers by their error code (rate_limited, query_timeout, database_busy, ...)."
            case .jobRuns: "Passes of each background job."
            case .jobFailures: "Passes of each background job that failed (retried at its next interval)."
            }
        }

        public var labelNames: [String] {
            switch self {
            case .errors: ["code"]
            case .jobRuns, .jobFailures: ["job"]
            }
        }
    }

    private let state = Mutex(State())
    private let collectors = Mutex<[Collector]>([])

    public init() {}

    /// Records one answered request. `route` is the matched template (`/v1/posts/{id}`),
    /// or `unmatched`: never the raw path, whose values an attacker chooses.
    public func recordRequest(route: String, method: String, status: Int, seconds: Double) {
        let bucket = Self.latencyBuckets.firstIndex { seconds <= $0 }
        let method = HTTPMethod.label(method)
        let route = Self.labelValue(route, allowing: "/{}_-.")
        let status = (100...599).contains(status) ? status : 0
        state.withLock { state in
            var key = RequestKey(route: route, method: method, status: status)
            if state.requests[key] == nil && state.requests.count >= Self.maxSeries { key = RequestKey(route: "other", method: "other", status: 0) }
            state.requests[key, default: 0] += 1
            var latencyKey = LatencyKey(route: key.route, method: key.method)
            if state.latency[latencyKey] == nil && state.latency.count >= Self.maxSeries { latencyKey = LatencyKey(route: "other", method: "other") }
            state.latency[latencyKey, default: Histogram()].record(bucket: bucket, seconds: seconds)
        }
    }

    /// Adds one to `counter` with `labels` (values for its label names, in order).
    public func increment(_ counter: Counter, _ labels: String...) {
        let labels = labels.map { Self.labelValue($0, allowing: "_-.") }
        state.withLock { state in
            var key = CounterKey(name: counter.rawValue, labels: labels)
            if state.counters[key] == nil && state.counters.count >= Self.maxSeries * Counter.allCases.count {
                key = CounterKey(name: counter.rawValue, labels: labels.map { _ in "other" })
            }
            state.counters[key, default: 0] += 1
        }
    }

    /// `value` when it is at most 64 of a–z, A–Z, 0–9 and `extra`, else `other`: what the
    /// server itself names (routes, codes, jobs) always is.
    public static func labelValue(_ value: String, allowing extra: StaticString) -> String {
        // `extra` is a few ASCII bytes: scanned in place (a `Set` of them was built per
        // request, per label).
        let allowed = UnsafeBufferPointer(start: extra.utf8Start, count: extra.utf8CodeUnitCount)
        let fits = (1...64).contains(value.utf8.count) && value.utf8.allSatisfy {
            (97...122).contains($0) || (65...90).contains($0) || (48...57).contains($0) || allowed.contains($0)
        }
        return fits ? value : "other"
    }

    /// Adds a collector of gauges, read at every scrape.
    public func addCollector(_ collector: @escaping Collector) {
        collectors.withLock { $0.append(collector) }
    }

    /// Everything, in the text format.
    public func render() -> String {
        let state = state.withLock { $0 }
        var text = MetricsText()
        text.family("market09_http_requests_total", type: "counter", help: "Answered requests by route template, method and status.")
        for (key, count) in state.requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            text.sample("market09_http_requests_total", ["route": key.route, "method": key.method, "status": String(key.status)], Double(count))
        }
        text.family("market09_http_request_duration_seconds", type: "histogram", help: "Time from a request's first byte to its answer being queued.")
        for (key, histogram) in state.latency.sorted(by: { ($0.key.route, $0.key.method) < ($1.key.route, $1.key.method) }) {
            let labels = ["route": key.route, "method": key.method]
            var cumulative = 0
            for (bound, count) in zip(Self.latencyBuckets, histogram.buckets) {
                cumulative += count
                text.sample("market09_http_request_duration_seconds_bucket", labels.merging(["le": MetricsText.number(bound)]) { $1 }, Double(cumulative))
            }
            text.sample("market09_http_request_duration_seconds_bucket", labels.merging(["le": "+Inf"]) { $1 }, Double(histogram.count))
            text.sample("market09_http_request_duration_seconds_sum", labels, histogram.sum)
            text.sample("market09_http_request_duration_seconds_count", labels, Double(histogram.count))
        }
        for counter in Counter.allCases {
            text.family(counter.rawValue, type: "counter", help: counter.help)
            for (key, count) in state.counters where key.name == counter.rawValue {
                text.sample(counter.rawValue, Dictionary(uniqueKeysWithValues: zip(counter.labelNames, key.labels)), Double(count))
            }
        }
        for collect in collectors.withLock({ $0 }) { collect(&text) }
        return text.text
    }
}

/// Prometheus' text exposition format: a `# HELP` and `# TYPE` line per family, then its
/// samples, label values escaped.
public struct MetricsText: Sendable {
    /// The text so far.
    public private(set) var text = ""

    /// Starts the family `name`.
    public mutating func family(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// One sample; labels in name order.
    public mutating func sample(_ name: String, _ labels: [String: String], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(Self.escape($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    /// A gauge family with one sample.
    public mutating func gauge(_ name: String, help: String, _ value: Double, _ labels: [String: String] = [:]) {
        family(name, type: "gauge", help: help)
        sample(name, labels, value)
    }

    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
