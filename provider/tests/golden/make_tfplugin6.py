#!/usr/bin/env python3
"""Writes tfplugin6/*.bin: protocol 6.9-6.10 messages encoded by Google's
protobuf for Python (not prost, not this repository's .proto) and msgpack
for Python, for tests/protocol_golden.rs to decode with ctywire's types and
encode again byte for byte.

The .proto is upstream's, as terraform-plugin-go ships it (protocol 6.11,
a superset of 6.10 with the same field numbers):

    pip install grpcio-tools==1.85.1 msgpack==1.2.4
    python3 make_tfplugin6.py \\
        PATH/terraform-plugin-go/tfprotov6/internal/tfplugin6/tfplugin6.proto

The bytes in this directory were made from terraform-plugin-go at commit
9af70d9dbad615f6477827bc30726397470dcb38 with grpcio-tools 1.85.1 (its
protoc), protobuf 7.36.2 for Python (upb) and msgpack 1.2.4. Values are cty's msgpack (an object is a map of its attributes
in name order) and cty's JSON type encoding.
"""

import importlib
import os
import shutil
import sys
import tempfile

import msgpack
from grpc_tools import protoc


def compile_proto(proto):
    out = tempfile.mkdtemp()
    # The module's name follows the file's.
    shutil.copy(proto, os.path.join(out, "tfplugin6.proto"))
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    code = protoc.main(["protoc", f"-I{out}", f"-I{include}",
                        f"--python_out={out}", "tfplugin6.proto"])
    if code != 0:
        sys.exit(f"protoc failed on {proto}")
    sys.path.insert(0, out)
    return importlib.import_module("tfplugin6_pb2")


def main():
    pb = compile_proto(os.path.abspath(sys.argv[1]))
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfplugin6")
    os.makedirs(here, exist_ok=True)

    def mp(value):
        return pb.DynamicValue(msgpack=msgpack.packb(value, use_bin_type=True))

    def identity(key):
        return pb.ResourceIdentityData(identity_data=mp({"key": key, "region": "eu"}))

    entry = {"id": "a", "key": "a", "value": "one"}
    warning = pb.Diagnostic(severity=pb.Diagnostic.WARNING, summary="Old identity",
                            detail="Upgraded from version 1.")
    messages = {
        # 6.9: resource identity.
        "get_resource_identity_schemas.response": pb.GetResourceIdentitySchemas.Response(
            identity_schemas={"kv_entry": pb.ResourceIdentitySchema(
                version=2,
                identity_attributes=[
                    pb.ResourceIdentitySchema.IdentityAttribute(
                        name="key", type=b'"string"', required_for_import=True,
                        description="The entry's key."),
                    pb.ResourceIdentitySchema.IdentityAttribute(
                        name="region", type=b'"string"', optional_for_import=True),
                ])}),
        "upgrade_resource_identity.request": pb.UpgradeResourceIdentity.Request(
            type_name="kv_entry", version=1,
            raw_identity=pb.RawState(json=b'{"key":"a"}')),
        "upgrade_resource_identity.response": pb.UpgradeResourceIdentity.Response(
            upgraded_identity=identity("a"), diagnostics=[warning]),
        "read_resource.request": pb.ReadResource.Request(
            type_name="kv_entry", current_state=mp(entry), private=b"p",
            current_identity=identity("a")),
        "plan_resource_change.response": pb.PlanResourceChange.Response(
            planned_state=mp(entry), planned_private=b"p",
            planned_identity=identity("a")),
        "import_resource_state.request": pb.ImportResourceState.Request(
            type_name="kv_entry", id="", identity=identity("a")),
        # 6.10: list resources, actions, generated configuration.
        "list_resource.request": pb.ListResource.Request(
            type_name="kv_entry", config=mp({"prefix": "a"}),
            include_resource_object=True, limit=100000),
        "list_resource.event": pb.ListResource.Event(
            identity=identity("a"), display_name="a", resource_object=mp(entry),
            diagnostic=[warning]),
        "validate_list_resource_config.request": pb.ValidateListResourceConfig.Request(
            type_name="kv_entry", config=mp({"prefix": None}),
            include_resource_object=mp(True), limit=mp(10)),
        "plan_action.request": pb.PlanAction.Request(
            action_type="kv_count", config=mp({"to": 3}),
            client_capabilities=pb.ClientCapabilities(deferral_allowed=True)),
        "invoke_action.event.progress": pb.InvokeAction.Event(
            progress=pb.InvokeAction.Event.Progress(message="2 of 3")),
        "invoke_action.event.completed": pb.InvokeAction.Event(
            completed=pb.InvokeAction.Event.Completed(diagnostics=[warning])),
        "generate_resource_config.response": pb.GenerateResourceConfig.Response(
            config=mp({"id": None, "key": "a", "value": "one"})),
        "schema.attribute.deprecated": pb.Schema.Attribute(
            name="old_value", type=b'"string"', optional=True, deprecated=True,
            deprecation_message="use value instead"),
    }
    for name, message in messages.items():
        with open(os.path.join(here, f"{name}.bin"), "wb") as f:
            f.write(message.SerializeToString(deterministic=True))
    print(f"wrote {len(messages)} messages to {here}")


if __name__ == "__main__":
    main()
