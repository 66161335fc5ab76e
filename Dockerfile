# market09 API image. Built by docker-compose.yml's `api` service.
#
# Build stage: the Swift toolchain plus the C libraries' development packages.
FROM swift:6.3-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends pkg-config libpq-dev libssl-dev libmicrohttpd-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Package.swift declares the test targets too, and SwiftPM wants their folders even to
# build one product: without Tests/ the build stopped at "Source files for target
# DomainTests should be located under 'Tests/DomainTests'".
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
# The build directory is a cache kept between builds (BuildKit): a changed source file
# recompiles what depends on it, not the whole package (94 s from nothing on 2 cores).
RUN --mount=type=cache,target=/src/.build \
    swift build -c release --product market09 --static-swift-stdlib \
 && install -D .build/release/market09 /out/market09

# Runtime stage: the shared C libraries only. Migrations sit beside the binary, where
# market09 looks for them (MIGRATIONS_DIR overrides).
FROM debian:bookworm-slim
# pgBackRest: docker-compose.yml's backup host runs this image (market09 backup run). The
# market09 user has uid 999, PostgreSQL's in the official image: the backup host reads the
# clusters' files and writes the repository PostgreSQL's archive-push writes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq5 libssl3 libmicrohttpd12 zlib1g curl ca-certificates pgbackrest \
 && rm -rf /var/lib/apt/lists/* \
 && : > /etc/pgbackrest.conf && chmod 0644 /etc/pgbackrest.conf \
 && groupadd --system --gid 999 market09 \
 && useradd --system --uid 999 --gid 999 --home /app --shell /usr/sbin/nologin market09 \
 && mkdir -p /var/lib/market09/media /var/lib/pgbackrest /tmp/pgbackrest \
 && chown market09:market09 /var/lib/market09/media /var/lib/pgbackrest /tmp/pgbackrest
WORKDIR /app
COPY --from=build /out/market09 /app/market09
COPY migrations /app/migrations
COPY openapi.yaml /app/openapi.yaml
USER market09
# PATH: `docker compose exec backup market09 backup list` and the like.
ENV HOST=0.0.0.0 PORT=8080 MIGRATIONS_DIR=/app/migrations PATH=/app:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8080/ready || exit 1
ENTRYPOINT ["/app/market09"]
CMD ["serve"]
