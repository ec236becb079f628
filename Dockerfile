# The gateway in a container, built from this source tree:
#
#   docker build -t beamharmony .
#   docker run -p 8080:8080 -e BEAMHARMONY_BACKEND=http://vllm:8000 beamharmony
#
# Every flag of "beamharmony serve" is also an environment variable
# (docs/cli.md); the image listens on every interface.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/beamharmony ./cmd/beamharmony

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/beamharmony /beamharmony
ENV BEAMHARMONY_LISTEN=:8080
EXPOSE 8080
ENTRYPOINT ["/beamharmony", "serve"]
