pub mod doctor;
pub mod graph;
pub mod index;
pub mod init;
pub mod serve;
pub mod version;
