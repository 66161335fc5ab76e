import Domain
import Foundation
import HTTPServer

/// `{data, total, page}`: the app pages while what it loaded is below `total`.
struct FunctionsPage: JSONWritable {
    let data: [PostResponse]
    let total: Int
    let page: Int

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("data", data)
            json.field("total", total)
            json.field("page", page)
        }
    }
}

/// `{data, meta: {page, limit, total}}` of `action=schedule`.
struct FunctionsSchedule: JSONWritable {
    let data: [PostResponse]
    let page: Int
    let limit: Int
    let total: Int

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("data", data)
            json.field("meta", Meta(page: page, limit: limit, total: total))
        }
    }

    private struct Meta: JSONWritable {
        let page: Int
        let limit: Int
        let total: Int

        func write(to json: inout JSONWriter) {
            json.object { json in
                json.field("page", page)
                json.field("limit", limit)
                json.field("total", total)
            }
        }
    }
}

/// `{status}` of an influencer registration, `{url}` of an upload.
struct FunctionsField: JSONWritable {
    let name: String
    let value: String

    func write(to json: inout JSONWriter) {
        json.object { json in json.field(dynamic: name, value) }
    }
}
