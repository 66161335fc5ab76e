import CMicroHTTPD

// The C callbacks libmicrohttpd calls on its threads: each recovers the server from its
// context pointer (passed unretained; the server outlives the daemon) and hands over.

let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, context in
    guard let cls, let connection, let url, let method, let uploadSize, let context else { return .NO }
    let server = Unmanaged<MicroHTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(connection: connection, url: url, method: method, uploadData: uploadData, uploadSize: uploadSize, context: context)
}

let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, context, termination in
    guard let cls else { return }
    let server = Unmanaged<MicroHTTPServer>.fromOpaque(cls).takeUnretainedValue()
    server.completed(connection: connection, context: context, termination: termination)
}

let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, context, event in
    guard let cls, let connection else { return }
    Unmanaged<MicroHTTPServer>.fromOpaque(cls).takeUnretainedValue().connection(connection, context, event)
}
