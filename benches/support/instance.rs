//! The benchmark instance type (`payloads::instance_type`) as Rust structs,
//! the way a provider author would write them: every attribute may be
//! null (the payloads make 10% of them null), numbers exact, nested blocks
//! as `Vec`s, sets as `BTreeSet`s.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use ctywire::Number;
use serde::{Deserialize, Serialize};

type Tags = Option<BTreeMap<String, Option<String>>>;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Ebs {
    pub delete_on_termination: Option<bool>,
    pub device_name: Option<String>,
    pub encrypted: Option<bool>,
    pub iops: Option<Number>,
    pub kms_key_id: Option<String>,
    pub snapshot_id: Option<String>,
    pub tags: Tags,
    pub throughput: Option<Number>,
    pub volume_id: Option<String>,
    pub volume_size: Option<Number>,
    pub volume_type: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct CreditSpecification {
    pub cpu_credits: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct MetadataOptions {
    pub http_endpoint: Option<String>,
    pub http_put_response_hop_limit: Option<Number>,
    pub http_tokens: Option<String>,
    pub instance_metadata_tags: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Timeouts {
    pub create: Option<String>,
    pub delete: Option<String>,
    pub update: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Instance {
    pub ami: Option<String>,
    pub arn: Option<String>,
    pub associate_public_ip_address: Option<bool>,
    pub availability_zone: Option<String>,
    pub cpu_core_count: Option<Number>,
    pub cpu_threads_per_core: Option<Number>,
    pub disable_api_termination: Option<bool>,
    pub ebs_optimized: Option<bool>,
    pub get_password_data: Option<bool>,
    pub hibernation: Option<bool>,
    pub host_id: Option<String>,
    pub iam_instance_profile: Option<String>,
    pub id: Option<String>,
    pub instance_state: Option<String>,
    pub instance_type: Option<String>,
    pub ipv6_address_count: Option<Number>,
    pub ipv6_addresses: Option<Vec<Option<String>>>,
    pub key_name: Option<String>,
    pub monitoring: Option<bool>,
    pub outpost_arn: Option<String>,
    pub password_data: Option<String>,
    pub placement_group: Option<String>,
    pub primary_network_interface_id: Option<String>,
    pub private_dns: Option<String>,
    pub private_ip: Option<String>,
    pub public_dns: Option<String>,
    pub public_ip: Option<String>,
    pub secondary_private_ips: Option<BTreeSet<String>>,
    pub security_groups: Option<BTreeSet<String>>,
    pub source_dest_check: Option<bool>,
    pub subnet_id: Option<String>,
    pub tags: Tags,
    pub tags_all: Tags,
    pub tenancy: Option<String>,
    pub user_data: Option<String>,
    pub user_data_base64: Option<String>,
    pub vpc_security_group_ids: Option<BTreeSet<String>>,
    pub ebs_block_device: Option<Vec<Option<Ebs>>>,
    pub root_block_device: Option<Vec<Option<Ebs>>>,
    pub credit_specification: Option<Vec<Option<CreditSpecification>>>,
    pub metadata_options: Option<Vec<Option<MetadataOptions>>>,
    pub timeouts: Option<Timeouts>,
}
