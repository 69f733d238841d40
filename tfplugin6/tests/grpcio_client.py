"""Terraform's side of a call, played by Python's grpcio on its default
settings: GetMetadata and GetProviderSchema over the plugin's unix socket,
with go-plugin's AutoMTLS when given the certificates, in plaintext (as a
plugin launched without PLUGIN_CLIENT_CERT serves) when not. Prints each
answer's protobuf bytes in hex, or the gRPC error, one line per call.

usage: grpcio_client.py SOCKET [SERVER_CERT_B64 CLIENT_CERT_PEM CLIENT_KEY_PEM]
"""

import base64
import sys
import textwrap

import grpc


def pem_of(der_b64_unpadded):
    der = base64.b64decode(der_b64_unpadded + "=" * (-len(der_b64_unpadded) % 4))
    body = "\n".join(textwrap.wrap(base64.b64encode(der).decode(), 64))
    return f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n".encode()


def secure_channel(socket, server_cert, cert_file, key_file):
    with open(cert_file, "rb") as f:
        cert = f.read()
    with open(key_file, "rb") as f:
        key = f.read()
    # go-plugin's client trusts exactly the certificate from the handshake
    # line, which is made for "localhost". grpcio names a unix socket by
    # its percent-encoded path instead, as SNI and as :authority; its TLS
    # host check would refuse the certificate, so the name is set, as any
    # client of a go-plugin server must.
    creds = grpc.ssl_channel_credentials(
        root_certificates=pem_of(server_cert), private_key=key, certificate_chain=cert
    )
    options = [("grpc.ssl_target_name_override", "localhost")]
    return grpc.secure_channel("unix:" + socket, creds, options=options)


def main():
    socket = sys.argv[1]
    if len(sys.argv) > 2:
        channel = secure_channel(socket, *sys.argv[2:5])
    else:
        # Nothing set: grpcio sends the socket's percent-encoded path as
        # :authority.
        channel = grpc.insecure_channel("unix:" + socket)
    with channel:
        for method in ("GetMetadata", "GetProviderSchema"):
            # A generic stub: the empty request is the empty message.
            call = channel.unary_unary(
                f"/tfplugin6.Provider/{method}",
                request_serializer=lambda b: b,
                response_deserializer=lambda b: b,
            )
            try:
                print(method, "ok", call(b"", timeout=10).hex())
            except grpc.RpcError as e:
                print(method, "error", e.code(), e.details())


if __name__ == "__main__":
    main()
