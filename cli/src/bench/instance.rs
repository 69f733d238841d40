//! The benchmark instance type (`payloads::instance_type`) as Rust structs,
//! the way a provider author would write them: every attribute may be
//! null (the payloads make 10% of them null), numbers exact, nested blocks
//! as `Vec`s, sets as `BTreeSet`s. Text is `String` unless `S` says
//! otherwise: `Instance<&str>` borrows every string from the input.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use ctywire::Number;
use serde::{Deserialize, Serialize};

type Tags<S> = Option<BTreeMap<S, Option<S>>>;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(bound(deserialize = "S: Deserialize<'de> + Ord"))]
pub struct Ebs<S = String> {
    pub delete_on_termination: Option<bool>,
    pub device_name: Option<S>,
    pub encrypted: Option<bool>,
    pub iops: Option<Number>,
    pub kms_key_id: Option<S>,
    pub snapshot_id: Option<S>,
    pub tags: Tags<S>,
    pub throughput: Option<Number>,
    pub volume_id: Option<S>,
    pub volume_size: Option<Number>,
    pub volume_type: Option<S>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(bound(deserialize = "S: Deserialize<'de> + Ord"))]
pub struct CreditSpecification<S = String> {
    pub cpu_credits: Option<S>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(bound(deserialize = "S: Deserialize<'de> + Ord"))]
pub struct MetadataOptions<S = String> {
    pub http_endpoint: Option<S>,
    pub http_put_response_hop_limit: Option<Number>,
    pub http_tokens: Option<S>,
    pub instance_metadata_tags: Option<S>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(bound(deserialize = "S: Deserialize<'de> + Ord"))]
pub struct Timeouts<S = String> {
    pub create: Option<S>,
    pub delete: Option<S>,
    pub update: Option<S>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(bound(deserialize = "S: Deserialize<'de> + Ord"))]
pub struct Instance<S = String> {
    pub ami: Option<S>,
    pub arn: Option<S>,
    pub associate_public_ip_address: Option<bool>,
    pub availability_zone: Option<S>,
    pub cpu_core_count: Option<Number>,
    pub cpu_threads_per_core: Option<Number>,
    pub disable_api_termination: Option<bool>,
    pub ebs_optimized: Option<bool>,
    pub get_password_data: Option<bool>,
    pub hibernation: Option<bool>,
    pub host_id: Option<S>,
    pub iam_instance_profile: Option<S>,
    pub id: Option<S>,
    pub instance_state: Option<S>,
    pub instance_type: Option<S>,
    pub ipv6_address_count: Option<Number>,
    pub ipv6_addresses: Option<Vec<Option<S>>>,
    pub key_name: Option<S>,
    pub monitoring: Option<bool>,
    pub outpost_arn: Option<S>,
    pub password_data: Option<S>,
    pub placement_group: Option<S>,
    pub primary_network_interface_id: Option<S>,
    pub private_dns: Option<S>,
    pub private_ip: Option<S>,
    pub public_dns: Option<S>,
    pub public_ip: Option<S>,
    pub secondary_private_ips: Option<BTreeSet<S>>,
    pub security_groups: Option<BTreeSet<S>>,
    pub source_dest_check: Option<bool>,
    pub subnet_id: Option<S>,
    pub tags: Tags<S>,
    pub tags_all: Tags<S>,
    pub tenancy: Option<S>,
    pub user_data: Option<S>,
    pub user_data_base64: Option<S>,
    pub vpc_security_group_ids: Option<BTreeSet<S>>,
    pub ebs_block_device: Option<Vec<Option<Ebs<S>>>>,
    pub root_block_device: Option<Vec<Option<Ebs<S>>>>,
    pub credit_specification: Option<Vec<Option<CreditSpecification<S>>>>,
    pub metadata_options: Option<Vec<Option<MetadataOptions<S>>>>,
    pub timeouts: Option<Timeouts<S>>,
}
